// The map: bundled state outlines and lakes (no tiles), every basin coloured by the class of its
// % of median, names on hover, a legend of the NRCS classes, and zoom to the chosen basin.
/* global L, topojson */
import { getJson } from './api.js';
import { CLASSES, classOf, NO_DATA } from './units.js';

const BASIN_STYLE = { color: '#33414d', weight: 1, opacity: 0.9, fillOpacity: 0.85 };
const CHOSEN_STYLE = { color: '#000', weight: 3, opacity: 1 };
const cls = (triplet) => `basin-${triplet.replaceAll(':', '-')}`;

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
    this.legend = this.#legend();
  }

  /** Draw the bundled state outlines and lakes beneath everything else. */
  async basemap() {
    const [states, lakes] = await Promise.all([
      getJson('app/vendor/states-10m.json'),
      getJson('app/vendor/lakes.json'),
    ]);
    this.map.createPane('base').style.zIndex = 250;
    const base = { pane: 'base', interactive: false };
    L.geoJSON(topojson.feature(states, states.objects.nation), {
      ...base,
      style: { color: '#8a99a6', weight: 1.2, fill: true, fillColor: '#f4f1ea', fillOpacity: 1 },
    }).addTo(this.map);
    L.geoJSON(
      topojson.mesh(states, states.objects.states, (a, b) => a !== b),
      {
        ...base,
        style: { color: '#a9b4bd', weight: 0.8, dashArray: '3 3', className: 'state-line' },
      },
    ).addTo(this.map);
    L.geoJSON(lakes, {
      ...base,
      style: { color: '#7aa6c7', weight: 0.6, fillColor: '#b9d7ea', fillOpacity: 1 },
    }).addTo(this.map);
  }

  /** Draw the basins (largest first, so small ones stay clickable) and fit the view to them. */
  basins(features) {
    const sorted = [...features].sort((a, b) => b.properties.area_meters - a.properties.area_meters);
    const group = L.featureGroup();
    for (const f of sorted) {
      const layer = L.geoJSON(f, {
        style: { ...BASIN_STYLE, fillColor: NO_DATA[2], className: `basin ${cls(f.id)}` },
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
        className: `outlet outlet-${f.id.replaceAll(':', '-')}`,
      });
      dot.bindTooltip(() => this.#tip(f));
      dot.on('click', () => this.onPick(f.id));
      dot.addTo(group);
      this.outlets.set(f.id, dot);
    }
    group.addTo(this.map);
    if (sorted.length > 0)
      this.map.fitBounds(group.getBounds(), { padding: [16, 16], maxZoom: 9, animate: false });
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
      const [, label, colour] = classOf(pctByTriplet.get(triplet));
      layer.setStyle({ fillColor: colour });
      this.outlets.get(triplet)?.setStyle({ fillColor: colour });
      layer.getElement()?.setAttribute('data-class', label);
    }
  }

  /** Outline the chosen basin and zoom to it (null clears the choice). */
  choose(triplet, zoom = true) {
    if (this.chosen) this.layers.get(this.chosen)?.setStyle(BASIN_STYLE);
    this.chosen = triplet;
    const layer = triplet && this.layers.get(triplet);
    if (!layer) return;
    layer.setStyle(CHOSEN_STYLE).bringToFront();
    if (zoom) this.map.fitBounds(layer.getBounds(), { padding: [24, 24], maxZoom: 10 });
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
