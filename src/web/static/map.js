// The map: bundled state outlines and lakes (no tiles), every basin coloured by the class of its
// % of median, names on hover, a legend of the NRCS classes, and zoom to the chosen basin.
/* global L, topojson */
import { getAllFeatures, getJson } from './api.js';
import { CLASSES, classOf, NO_DATA } from './units.js';

// Outline detail by zoom. Pixels are 360/(256·2^z)° wide: 0.011° at zoom 7, 0.0014° at zoom 10.
export const COARSE_DEG = '0.01'; // every basin at first load (also in index.html's preload)
const FINE_DEG = '0.002'; // basins in view from FINE_ZOOM on
const FINE_ZOOM = 8;
const OUTLET_REACH_DEG = 2; // the view padded by this finds basins whose outlet lies outside it

const BASIN_STYLE = { color: '#33414d', weight: 1, opacity: 0.9, fillOpacity: 0.85 };
const CHOSEN_STYLE = { color: '#000', weight: 3, opacity: 1 };

export class BasinMap {
  /** A map in element `id`; `onPick(triplet)` is called when a basin is clicked. */
  constructor(id, onPick) {
    this.map = L.map(id, { zoomSnap: 0.25, minZoom: 3, maxZoom: 13, keyboard: true });
    this.map.attributionControl.setPrefix('Leaflet');
    this.map.attributionControl.addAttribution(
      'states: US Census Bureau via us-atlas · lakes: © OpenStreetMap contributors (ODbL) · basins: NRCS BAGIS',
    );
    this.map.setView([40, -112], 4);
    this.onPick = onPick;
    this.layers = new Map(); // triplet → Leaflet path
    this.outlets = new Map(); // triplet → outflow point marker
    this.values = new Map(); // triplet → % of median
    this.chosen = null;
    this.fine = new Set(); // triplets whose outlines are FINE_DEG
    this.map.on('moveend', () => this.#refine());
    // Basins and outlets paint on one canvas: 1,200 SVG elements took ~0.5 s to lay out and paint.
    this.canvas = L.canvas({ tolerance: 2 });
    this.base = null; // the basemap's data, fetched by loadBasemap and drawn with the basins
    this.legend = this.#legend();
  }

  /** Fetch the bundled state outlines and lakes (drawn by `basins`, once the view is fitted). */
  async loadBasemap() {
    const [states, lakes] = await Promise.all([
      getJson('app/vendor/states-10m.json'),
      getJson('app/vendor/lakes.json'),
    ]);
    this.base = { states, lakes };
  }

  /** Draw the state outlines and lakes beneath everything else. */
  #drawBasemap({ states, lakes }) {
    this.map.createPane('base').style.zIndex = 250;
    const base = { pane: 'base', interactive: false, renderer: L.canvas({ pane: 'base' }) };
    L.geoJSON(topojson.feature(states, states.objects.nation), {
      ...base,
      style: { color: '#8a99a6', weight: 1.2, fill: true, fillColor: '#f4f1ea', fillOpacity: 1 },
    }).addTo(this.map);
    L.geoJSON(
      topojson.mesh(states, states.objects.states, (a, b) => a !== b),
      {
        ...base,
        style: { color: '#a9b4bd', weight: 0.8, dashArray: '3 3' },
      },
    ).addTo(this.map);
    L.geoJSON(lakes, {
      ...base,
      style: { color: '#7aa6c7', weight: 0.6, fillColor: '#b9d7ea', fillOpacity: 1 },
    }).addTo(this.map);
  }

  /** Fit the view to the basins, then draw the basemap and the basins (largest first, so small ones stay clickable). */
  basins(features) {
    const sorted = [...features].sort((a, b) => b.properties.area_meters - a.properties.area_meters);
    const group = L.featureGroup();
    const renderer = this.canvas;
    for (const f of sorted) {
      const layer = L.geoJSON(f, {
        style: { ...BASIN_STYLE, fillColor: NO_DATA[2], renderer },
      }).getLayers()[0];
      layer.bindTooltip(() => this.#tip(f), { sticky: true });
      layer.on('click', () => this.onPick(f.id));
      layer.addTo(group);
      this.layers.set(f.id, layer);
    }
    // Outflow points on top: a basin stays findable, and its colour visible, when zoomed far out.
    for (const f of sorted) {
      const [lon, lat] = f.properties.pourpoint;
      const dot = L.circleMarker([lat, lon], {
        radius: 5,
        color: '#33414d',
        weight: 1,
        fillColor: NO_DATA[2],
        fillOpacity: 1,
        renderer,
      });
      dot.bindTooltip(() => this.#tip(f));
      dot.on('click', () => this.onPick(f.id));
      dot.addTo(group);
      this.outlets.set(f.id, dot);
    }
    // Fit first, then add: every path is projected once, at the final zoom.
    if (sorted.length > 0) this.#fit(group.getBounds(), 16, 9, false);
    if (this.base) this.#drawBasemap(this.base);
    group.addTo(this.map);
  }

  /** From FINE_ZOOM on, swap the coarse outlines of basins in view for fine ones. */
  async #refine() {
    if (this.map.getZoom() < FINE_ZOOM || this.layers.size === this.fine.size) return;
    const b = this.map.getBounds();
    const r = OUTLET_REACH_DEG;
    const bbox = [b.getWest() - r, b.getSouth() - r, b.getEast() + r, b.getNorth() + r]
      .map((x) => x.toFixed(4))
      .join(',');
    const features = await getAllFeatures('pourpoints', {
      geometry: 'basin',
      simplify: FINE_DEG,
      bbox,
      limit: 1000,
    }).catch(() => []); // coarse outlines stay: the map works, only less sharp
    for (const f of features) {
      const layer = this.layers.get(f.id);
      if (!layer || this.fine.has(f.id)) continue;
      layer.setLatLngs(L.GeoJSON.geometryToLayer(f).getLatLngs());
      this.fine.add(f.id);
    }
  }

  #tip(f) {
    const v = this.values.get(f.id);
    const pct = v === undefined || v === null ? 'no % of median' : `${Math.round(v)} % of median`;
    return `<strong>${escapeHtml(f.properties.name)}</strong><br>${f.id}<br>${pct}`;
  }

  /** Colour each basin by the class of its % of median (missing → grey). */
  colour(pctByTriplet) {
    this.values = pctByTriplet;
    for (const [triplet, layer] of this.layers) {
      const [, , colour] = classOf(pctByTriplet.get(triplet));
      layer.setStyle({ fillColor: colour });
      this.outlets.get(triplet)?.setStyle({ fillColor: colour });
    }
  }

  /** Outline the chosen basin and zoom to it (null clears the choice). */
  choose(triplet, zoom = true) {
    if (this.chosen) this.layers.get(this.chosen)?.setStyle(BASIN_STYLE);
    this.chosen = triplet;
    const layer = triplet && this.layers.get(triplet);
    if (!layer) return;
    layer.setStyle(CHOSEN_STYLE).bringToFront();
    if (zoom) this.#fit(layer.getBounds(), 24, 10);
  }

  /** Fit `bounds` with `pad` px around, clear of the zoom buttons (top left) and the legend (bottom right). */
  #fit(bounds, pad, maxZoom, animate) {
    const legend = this.legend.getContainer().offsetWidth;
    const zoom = this.map.zoomControl?.getContainer().offsetWidth ?? 0;
    this.map.fitBounds(bounds, {
      paddingTopLeft: [pad + zoom, pad],
      paddingBottomRight: [pad + legend, pad],
      maxZoom,
      animate,
    });
  }

  /** Show `title` above the legend's classes (the date and variable the colours are for). */
  legendTitle(title) {
    this.legend.getContainer().querySelector('.legend-title').textContent = title;
  }

  #legend() {
    const legend = L.control({ position: 'bottomright' });
    legend.onAdd = () => {
      const div = L.DomUtil.create('div', 'legend');
      div.innerHTML = `<div class="legend-title"></div>${[...CLASSES, NO_DATA]
        .map(([, label, colour]) => `<div><i style="background:${colour}"></i>${label}</div>`)
        .join('')}`;
      return div;
    };
    return legend.addTo(this.map);
  }
}

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
