// The map: bundled state outlines and lakes (no tiles), every basin coloured by the class of its
// % of median, names on hover, a legend of the NRCS classes, and zoom to the chosen basin. Every
// basin is an outflow point from the start (the basin table: no outline downloaded); outlines come
// for the basins in view once they are few enough to draw (OUTLINES_IN_VIEW), coarse or fine by zoom.
/* global L, topojson */
import { getAllFeatures, getJson } from './api.js';
import { inside, mercator, PathCanvas, trace, unitBox, unitPaths } from './canvas.js';
import { CLASSES, classOf, NO_DATA, NO_SNOW } from './units.js';

// Outline detail by zoom. Pixels are 360/(256·2^z)° wide: 0.011° at zoom 7, 0.0014° at zoom 10.
const COARSE_DEG = '0.01'; // basins in view below FINE_ZOOM
const FINE_DEG = '0.002'; // basins in view from FINE_ZOOM on
const FINE_ZOOM = 8;
const OUTLINES_IN_VIEW = 1500; // outlines are fetched when at most this many basins' boxes meet the view
const SQUARES_FROM = 2000; // with more outflow points in view than this, each is a small square (one path per colour)
const SQUARE_PX = 3; // such a square's side

const BASIN_STYLE = { color: '#33414d', weight: 1, opacity: 0.9, fillOpacity: 0.85 };
const CHOSEN_STYLE = { ...BASIN_STYLE, color: '#000', weight: 3, opacity: 1 };
const OUTLET_PX = 5; // an outflow point's radius
const PICK_PX = 2; // how far past a dot's edge a click still picks it
const NATION = { fill: '#f4f1ea', stroke: '#8a99a6', weight: 1.2 };
const BORDERS = { stroke: '#a9b4bd', weight: 0.8, dash: [3, 3] };
const LAKES = { fill: '#b9d7ea', stroke: '#7aa6c7', weight: 0.6 };

/** An outflow point in layer px, on a whole pixel as Leaflet places markers (latLngToLayerPoint rounds). */
const outletPx = (b, v) => [Math.round(b.outlet[0] * v.s) - v.ox, Math.round(b.outlet[1] * v.s) - v.oy];

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
    this.shapes = new Map(); // triplet → { id, feature, rings (unit paths, null until fetched), tol (their tolerance, °), box, outlet (unit x, y), colour }
    this.order = []; // the shapes, largest first (so small basins draw on top and stay clickable)
    this.values = new Map(); // triplet → % of median
    this.chosen = null;
    this.outlines = null; // the outline request on its way: { key, done }
    this.base = null; // the basemap as unit paths: { nation, borders, lakes }
    this.map.createPane('base').style.zIndex = 250; // under the basins (overlay pane, 400)
    this.baseCanvas = new PathCanvas({ pane: 'base', paint: (ctx, v) => this.#paintBase(ctx, v) }).addTo(
      this.map,
    );
    this.canvas = new PathCanvas({ paint: (ctx, v) => this.#paint(ctx, v) }).addTo(this.map);
    this.tip = L.tooltip({ direction: 'top', offset: [0, -8] });
    // Whether a zoom is under way: a view set while Leaflet animates one is undone when it ends.
    this.zooming = false;
    this.map.on('zoomstart', () => {
      this.zooming = true;
    });
    this.map.on('zoomend', () => {
      this.zooming = false;
    });
    this.map.on('mousemove', (e) => this.#hover(e));
    this.map.on('mouseout', () => this.#hover(null));
    this.map.on('click', (e) => {
      if (this.drawing) return this.#addVertex(e.latlng);
      const hit = this.#hit(e.layerPoint);
      if (hit) this.onPick(hit.id);
    });
    this.map.on('dblclick', () => this.#finishDrawing());
    /** While a polygon is being drawn: its vertices, the line on show and who gets it. @type {{ points: number[][], line: any, onDone: (g: object) => void } | null} */
    this.drawing = null;
    this.area = null; // the outline of an uploaded or drawn area
    this.map.on('moveend', () => this.#refine());
    this.legend = this.#legend();
  }

  /**
   * Draw a polygon: each click adds a vertex, a double-click closes it (three vertices or more)
   * and hands `onDone` its GeoJSON Polygon; Escape gives up.
   */
  draw(onDone) {
    this.cancelDrawing();
    const line = L.polyline([], { color: '#000', weight: 2, dashArray: '4 3', interactive: false }).addTo(
      this.map,
    );
    this.drawing = { points: [], line, onDone };
    this.map.doubleClickZoom.disable();
    this.map.getContainer().classList.add('drawing');
    addEventListener('keydown', this.escape);
  }

  /** Escape gives up a drawing. @param {KeyboardEvent} e */
  escape = (e) => {
    if (e.key === 'Escape') this.cancelDrawing();
  };

  /** Stop drawing, keeping nothing. */
  cancelDrawing() {
    if (!this.drawing) return;
    this.drawing.line.remove();
    this.drawing = null;
    this.map.doubleClickZoom.enable();
    this.map.getContainer().classList.remove('drawing');
    removeEventListener('keydown', this.escape);
  }

  #addVertex(ll) {
    const d = this.drawing;
    if (!d) return;
    const last = d.points.at(-1);
    if (last && last[0] === ll.lng && last[1] === ll.lat) return; // a double-click's second click
    d.points.push([ll.lng, ll.lat]);
    d.line.setLatLngs(d.points.map(([x, y]) => [y, x]));
  }

  #finishDrawing() {
    if (!this.drawing || this.drawing.points.length < 3) return;
    const { points, onDone } = this.drawing;
    this.cancelDrawing();
    onDone({ type: 'Polygon', coordinates: [[...points, points[0]]] });
  }

  /** Outline an area on the map (null: none). */
  showArea(geometry) {
    this.area?.remove();
    this.area = null;
    if (!geometry) return;
    try {
      this.area = L.geoJSON(geometry, {
        style: { color: '#000', weight: 2, fill: false },
        interactive: false,
        filter: (f) => /Polygon$/.test((f.geometry ?? f).type), // outlines only: no marker for a point
      }).addTo(this.map);
      // The map goes to the area (it kept the basin chosen before).
      const b = this.area.getBounds();
      const fit = () => this.map.fitBounds(b, { padding: [20, 20], animate: false });
      if (!b.isValid()) return;
      if (this.zooming) this.map.once('zoomend', fit);
      else fit();
    } catch {
      this.area = null; // not GeoJSON the map can draw: the API's answer says why
    }
  }

  /** Fetch the bundled state outlines and lakes (drawn with the basins, once the view is fitted). */
  async loadBasemap() {
    const [states, lakes] = await Promise.all([
      getJson('app/vendor/states-10m.json'),
      getJson('app/vendor/lakes.json'),
    ]);
    this.base = {
      nation: unitPaths(topojson.feature(states, states.objects.nation)),
      borders: unitPaths(topojson.mesh(states, states.objects.states, (a, b) => a !== b)),
      lakes: unitPaths(lakes),
    };
  }

  /**
   * Set the basins (the basin table's features: outflow point and `box`, no geometry), fit the
   * view to them and draw; resolves once the outlines of the basins in view are drawn.
   */
  basins(features) {
    for (const f of features) {
      const [lon, lat] = f.properties.pourpoint;
      const [w, s, e, n] = f.box;
      this.shapes.set(f.id, {
        id: f.id,
        feature: f,
        rings: null,
        tol: Infinity,
        box: unitBox([new Float64Array([...mercator(w, n), ...mercator(e, s)])]),
        outlet: mercator(lon, lat),
        colour: NO_DATA[2],
      });
    }
    this.order = [...this.shapes.values()].sort(
      (a, b) => b.feature.properties.area_meters - a.feature.properties.area_meters,
    );
    const view = () => `${this.map.getZoom()} ${this.map.getCenter()}`;
    const before = view();
    if (this.order.length > 0) this.#fit(this.#bounds(this.order), 16, 9, false);
    if (view() === before) {
      this.baseCanvas.redraw(); // else the new view has drawn both canvases
      this.canvas.redraw();
    }
    return this.#refine();
  }

  /** The vertices the map holds for a basin's outline (closing vertices not counted). */
  vertices(triplet) {
    return this.shapes.get(triplet)?.rings?.reduce((n, r) => n + r.length / 2, 0) ?? 0;
  }

  #paintBase(ctx, v) {
    if (!this.base) return;
    const { nation, borders, lakes } = this.base;
    for (const [paths, st, closed] of [
      [nation, NATION, true],
      [borders, BORDERS, false],
      [lakes, LAKES, true],
    ]) {
      ctx.beginPath();
      trace(ctx, paths, v, closed);
      if (st.fill) {
        ctx.fillStyle = st.fill;
        ctx.fill('evenodd');
      }
      ctx.setLineDash(st.dash ?? []);
      ctx.lineWidth = st.weight;
      ctx.strokeStyle = st.stroke;
      ctx.stroke();
    }
  }

  #paint(ctx, v) {
    ctx.lineJoin = 'round';
    ctx.lineCap = 'round';
    const [x0, y0, x1, y1] = v.box;
    const seen = (b) => b.box[0] <= x1 && b.box[2] >= x0 && b.box[1] <= y1 && b.box[3] >= y0;
    const chosen = this.shapes.get(this.chosen);
    for (const b of this.order) if (b !== chosen && b.rings && seen(b)) this.#basin(ctx, v, b, BASIN_STYLE);
    if (chosen?.rings) this.#basin(ctx, v, chosen, CHOSEN_STYLE);
    // Outflow points on top: a basin stays findable, and its colour visible, when zoomed far out.
    // An outflow point may lie outside its basin's box: the points in view are found by their own.
    const pad = (OUTLET_PX + 1) / v.s; // a dot's reach, unit coordinates
    const dots = this.order.filter(
      ({ outlet: [x, y] }) => x >= x0 - pad && x <= x1 + pad && y >= y0 - pad && y <= y1 + pad,
    );
    ctx.globalAlpha = 1;
    if (dots.length > SQUARES_FROM) return this.#squares(ctx, v, dots);
    ctx.lineWidth = 1;
    ctx.strokeStyle = BASIN_STYLE.color;
    for (const b of dots) {
      ctx.beginPath();
      ctx.arc(...outletPx(b, v), OUTLET_PX, 0, 2 * Math.PI);
      ctx.fillStyle = b.colour;
      ctx.fill();
      ctx.stroke();
    }
  }

  /** Many outflow points: a SQUARE_PX square each, one path per colour (a raster of basin colours). */
  #squares(ctx, v, shapes) {
    const byColour = new Map();
    for (const b of shapes) {
      const same = byColour.get(b.colour);
      if (same) same.push(b);
      else byColour.set(b.colour, [b]);
    }
    const h = Math.floor(SQUARE_PX / 2); // whole px: the square covers whole pixels around the point's
    for (const [colour, bs] of byColour) {
      ctx.beginPath();
      for (const b of bs) {
        const [x, y] = outletPx(b, v);
        ctx.rect(x - h, y - h, SQUARE_PX, SQUARE_PX);
      }
      ctx.fillStyle = colour;
      ctx.fill();
    }
  }

  #basin(ctx, v, b, st) {
    ctx.beginPath();
    trace(ctx, b.rings, v, true);
    ctx.globalAlpha = st.fillOpacity;
    ctx.fillStyle = b.colour;
    ctx.fill('evenodd');
    ctx.globalAlpha = st.opacity;
    ctx.lineWidth = st.weight;
    ctx.strokeStyle = st.color;
    ctx.stroke();
  }

  /** The basin under layer point `p`: an outflow point first (drawn on top), then the topmost outline. */
  #hit(p) {
    const v = this.canvas.view();
    const reach = (OUTLET_PX + PICK_PX) ** 2;
    for (let k = this.order.length - 1; k >= 0; k--) {
      const b = this.order[k];
      const [x, y] = outletPx(b, v);
      if ((x - p.x) ** 2 + (y - p.y) ** 2 <= reach) return b;
    }
    const [x, y] = [(p.x + v.ox) / v.s, (p.y + v.oy) / v.s];
    const under = (b) =>
      b.rings !== null &&
      b.box[0] <= x &&
      x <= b.box[2] &&
      b.box[1] <= y &&
      y <= b.box[3] &&
      inside(b.rings, x, y);
    const chosen = this.shapes.get(this.chosen);
    if (chosen && under(chosen)) return chosen;
    for (let k = this.order.length - 1; k >= 0; k--) if (under(this.order[k])) return this.order[k];
    return null;
  }

  /** Name the basin under the pointer (and show a pointer cursor), or hide the name. */
  #hover(e) {
    const hit = e && this.#hit(e.layerPoint);
    this.map.getContainer().style.cursor = hit ? 'pointer' : '';
    if (!hit) {
      this.map.closeTooltip(this.tip);
      return;
    }
    this.tip.setContent(this.#tip(hit.feature));
    this.map.openTooltip(this.tip, e.latlng);
  }

  /** The Leaflet bounds of shapes. */
  #bounds(shapes) {
    const [x0, y0, x1, y1] = unitBox(shapes.map((b) => b.box)); // a box is two x, y pairs
    const px = this.map.options.crs.scale(0); // unit coordinates → pixels at zoom 0
    const at = (x, y) => this.map.unproject(L.point(x * px, y * px), 0);
    return L.latLngBounds(at(x0, y1), at(x1, y0));
  }

  /** The view as a unit box [x0, y0, x1, y1]. */
  #viewBox() {
    const b = this.map.getBounds();
    return unitBox([
      new Float64Array([...mercator(b.getWest(), b.getNorth()), ...mercator(b.getEast(), b.getSouth())]),
    ]);
  }

  /**
   * When few enough basins meet the view, fetch the outlines of those not yet drawn at this zoom's
   * detail (COARSE_DEG, FINE_DEG from FINE_ZOOM on), by the basins' boxes; resolves once drawn.
   */
  async #refine() {
    const [x0, y0, x1, y1] = this.#viewBox();
    const tol = this.map.getZoom() >= FINE_ZOOM ? FINE_DEG : COARSE_DEG;
    const inView = this.order.filter(
      (b) => b.box[0] <= x1 && b.box[2] >= x0 && b.box[1] <= y1 && b.box[3] >= y0,
    );
    if (inView.length > OUTLINES_IN_VIEW || inView.every((b) => b.tol <= Number(tol))) return;
    const bb = this.map.getBounds();
    const bbox = [bb.getWest(), bb.getSouth(), bb.getEast(), bb.getNorth()]
      .map((x) => x.toFixed(4))
      .join(',');
    const key = `${tol} ${bbox}`;
    if (this.outlines?.key === key) return this.outlines.done;
    const done = getAllFeatures('pourpoints', {
      geometry: 'basin',
      simplify: tol,
      bbox,
      bbox_on: 'basin',
      limit: 1000,
    })
      .catch(() => []) // outflow points (or coarser outlines) stay: the map works, only less sharp
      .then((features) => {
        for (const f of features) {
          const shape = this.shapes.get(f.id);
          if (!shape || shape.tol <= Number(tol)) continue;
          shape.rings = unitPaths(f.geometry);
          shape.box = unitBox(shape.rings); // culling and hit tests use the outline's own box
          shape.tol = Number(tol);
        }
        if (this.outlines?.key === key) this.outlines = null;
        if (features.length > 0) this.canvas.redraw();
      });
    this.outlines = { key, done };
    return done;
  }

  #tip(f) {
    const v = this.values.get(f.id);
    const pct =
      v?.pct === undefined || v.pct === null
        ? classOf(null, v?.median)[1].replace('no median', 'no % of median')
        : `${Math.round(v.pct)} % of median`;
    return `<strong>${escapeHtml(f.properties.name)}</strong><br>${f.id}<br>${pct}`;
  }

  /** Colour each basin by the class of its % of median ({pct, median} by triplet; missing → grey). */
  colour(byTriplet) {
    this.values = byTriplet;
    for (const [triplet, shape] of this.shapes) {
      const v = byTriplet.get(triplet);
      shape.colour = classOf(v?.pct, v?.median)[2];
    }
    this.canvas.redraw();
  }

  /** Outline the chosen basin and zoom to it (null clears the choice). */
  choose(triplet, zoom = true) {
    this.chosen = triplet;
    this.canvas.redraw();
    const shape = triplet && this.shapes.get(triplet);
    if (shape && zoom) this.#fit(this.#bounds([shape]), 24, 10);
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
      div.innerHTML = `<div class="legend-title"></div>${[...CLASSES, NO_SNOW, NO_DATA]
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
