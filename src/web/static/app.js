// snowdb web page: a map of the basins and, for the clicked one, a chart and a table of a
// variable over a date range per zone. Reads only the public API (the folder above /app/).
/* global L, uPlot */

const API = new URL('../', location.href);
const $ = (id) => document.getElementById(id);
const state = { datasets: new Map(), basin: null, layers: new Map(), chart: null, stats: null };
/** Series colours, one per zone (low bands cool, high bands warm). */
const COLOURS = [
  '#2b6cb0',
  '#2f9e9a',
  '#5aa454',
  '#b7a32c',
  '#d9822b',
  '#c8453b',
  '#9c3f8f',
  '#5b4bb7',
  '#6b7b86',
];

/** GET a JSON resource of the API; a problem+json body becomes the error message. */
async function getJson(path) {
  const r = await fetch(new URL(path, API), { headers: { Accept: 'application/json' } });
  const body = await r.json().catch(() => null);
  if (!r.ok) throw new Error(body?.detail ?? `${r.status} ${r.statusText}`);
  return body;
}

function status(text, error = false) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

/** A zone's label: its parts (band, class, threshold side) joined. */
function zoneLabel(zone) {
  if (zone.length === 0) return 'whole basin';
  if (zone[0].kind === 'unclassified') return 'unclassified (outside the zone layers)';
  return zone
    .map((p) => {
      if (p.kind === 'band') return `${p.min}–${p.max}${p.unit ? ` ${p.unit}` : ''}`;
      return p.label ?? String(p.code);
    })
    .join(' · ');
}

/** Dataset picker and its variables and dates. */
async function loadDatasets() {
  const list = await getJson('datasets');
  for (const d of list.datasets)
    state.datasets.set(d.name, await getJson(`datasets/${encodeURIComponent(d.name)}`));
  const sel = $('dataset');
  for (const name of state.datasets.keys()) sel.add(new Option(name, name));
  if (state.datasets.has('snodas')) sel.value = 'snodas';
  datasetChanged();
}

function datasetChanged() {
  const d = state.datasets.get($('dataset').value);
  const sel = $('variable');
  const keep = sel.value;
  sel.replaceChildren();
  for (const v of d.variables.filter((x) => x.reducer === 'mean'))
    sel.add(new Option(`${v.key} (${v.unit})`, v.key));
  const keys = [...sel.options].map((o) => o.value);
  sel.value = [keep, 'swe', 'snow_fraction'].find((k) => keys.includes(k)) ?? keys[0];
  for (const id of ['from', 'to']) {
    $(id).min = d.dates.first ?? '';
    $(id).max = d.dates.last ?? '';
  }
  $('from').value = d.dates.first ?? '';
  $('to').value = d.dates.last ?? '';
}

/** The basins on a plain background with a 1° graticule; smaller basins drawn on top. */
async function loadMap() {
  const map = L.map('map', { zoomSnap: 0.25, attributionControl: true });
  map.attributionControl.setPrefix('Leaflet').addAttribution('basins: NRCS BAGIS');
  const fc = await getJson('pourpoints?geometry=basin&limit=1000');
  const features = [...fc.features].sort((a, b) => b.properties.area_meters - a.properties.area_meters);
  const group = L.featureGroup();
  for (const f of features) {
    const layer = L.geoJSON(f, {
      style: {
        color: '#20415a',
        weight: 1.5,
        fillColor: '#7fb2d9',
        fillOpacity: 0.35,
        className: `basin basin-${f.id.replaceAll(':', '-')}`,
      },
    });
    layer.bindTooltip(`${f.properties.name}<br>${f.id}`, { sticky: true });
    layer.on('click', () => selectBasin(f));
    layer.addTo(group);
    state.layers.set(f.id, layer);
  }
  // Outflow points: a basin stays findable when the map is zoomed far out.
  for (const f of features) {
    const [lon, lat] = f.properties.pourpoint;
    L.circleMarker([lat, lon], {
      radius: 4,
      color: '#20415a',
      weight: 1,
      fillColor: '#fff',
      fillOpacity: 1,
      className: `outlet outlet-${f.id.replaceAll(':', '-')}`,
    })
      .bindTooltip(`${f.properties.name}<br>${f.id}`)
      .on('click', () => selectBasin(f))
      .addTo(group);
  }
  const b = group.getBounds();
  map.fitBounds(b, { padding: [20, 20] }); // a view first: Leaflet draws vectors only once it has one
  for (let lon = Math.floor(b.getWest()) - 2; lon <= Math.ceil(b.getEast()) + 2; lon++)
    L.polyline(
      [
        [b.getSouth() - 5, lon],
        [b.getNorth() + 5, lon],
      ],
      { color: '#c7d3da', weight: 0.7, interactive: false, className: 'graticule' },
    ).addTo(map);
  for (let lat = Math.floor(b.getSouth()) - 2; lat <= Math.ceil(b.getNorth()) + 2; lat++)
    L.polyline(
      [
        [lat, b.getWest() - 5],
        [lat, b.getEast() + 5],
      ],
      { color: '#c7d3da', weight: 0.7, interactive: false, className: 'graticule' },
    ).addTo(map);
  group.addTo(map);
  status(`${features.length} basins. Click one to chart its snow.`);
}

function selectBasin(f) {
  if (state.basin) state.layers.get(state.basin.id)?.setStyle({ fillColor: '#7fb2d9', weight: 1.5 });
  state.basin = f;
  state.layers.get(f.id)?.setStyle({ fillColor: '#e0a030', weight: 2.5 });
  const km2 = (f.properties.area_meters / 1e6).toFixed(1);
  $('basin').textContent = `${f.properties.name} (${f.id}), ${km2} km²`;
  loadStats();
}

/** Fetch the stats of the selected basin for the form's choices, then draw chart and table. */
async function loadStats() {
  const f = state.basin;
  if (!f) return;
  const dataset = $('dataset').value;
  const variable = $('variable').value;
  const q = new URLSearchParams({ datetime: `${$('from').value}/${$('to').value}`, variable });
  if ($('zone').value) q.append('zone', $('zone').value);
  status('loading…');
  const path = `datasets/${encodeURIComponent(dataset)}/stats/${encodeURIComponent(f.id)}/date-range`;
  let body;
  let note = '';
  try {
    body = await getJson(`${path}?${q}`);
    const lost = body.zones.find((z) => z.zone[0]?.kind === 'unclassified');
    if (lost && body.zones.length > 1) {
      const total = body.zones.reduce((t, z) => t + z.area_m2, 0);
      note = ` ${((100 * lost.area_m2) / total).toFixed(1)} % of the basin is outside the zone layers (the 'unclassified' zone).`;
    }
    if ((body.zones.length === 0 || (lost && body.zones.length === 1)) && q.has('zone')) {
      // No zone layer reaches this basin: show the whole basin rather than nothing.
      q.delete('zone');
      body = await getJson(`${path}?${q}`);
      note = ' No zone layer reaches this basin, so this is the whole basin.';
    }
  } catch (e) {
    status(e.message, true);
    return;
  }
  if (f !== state.basin) return; // another basin was clicked meanwhile
  state.stats = body;
  const stat = body.variables.findIndex((v) => v.startsWith('mean_'));
  const dates = Object.keys(body.results).sort();
  status(`${body.variables[stat]}: ${dates.length} dates, ${body.zones.length} zones.${note}`);
  const csv = body.links.find((l) => l.rel === 'alternate');
  if (!$('csv')) {
    const a = Object.assign(document.createElement('a'), { id: 'csv', download: '' });
    a.textContent = 'Download these numbers as CSV';
    $('downloads').append(a);
  }
  $('csv').href = csv.href;
  draw(body, stat, dates);
  tabulate(body, stat, dates);
}

/** One series per zone: the statistic's value per date (null where a date has no data). */
function seriesOf(body, stat, dates) {
  return body.zones.map((_, z) => dates.map((d) => body.results[d]?.[z]?.[stat] ?? null));
}

function draw(body, stat, dates) {
  state.chart?.destroy();
  const xs = dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
  const el = $('chart');
  const opts = {
    width: Math.max(320, el.clientWidth || 600),
    height: 300,
    scales: { x: { time: true } },
    axes: [{}, { label: body.variables[stat], size: 60 }],
    series: [
      { label: 'date', value: (_u, v) => (v == null ? '' : new Date(v * 1000).toISOString().slice(0, 10)) },
      ...body.zones.map((z, i) => ({
        label: zoneLabel(z.zone),
        stroke: COLOURS[i % COLOURS.length],
        width: 2,
        points: { size: 5 },
      })),
    ],
  };
  state.chart = new uPlot(opts, [xs, ...seriesOf(body, stat, dates)], el);
  window.snowdbChart = state.chart; // for scripts and tests: the drawn series
}

function tabulate(body, stat, dates) {
  const t = $('table');
  t.replaceChildren();
  const head = t.createTHead().insertRow();
  for (const h of ['date', ...body.zones.map((z) => zoneLabel(z.zone))]) {
    const th = document.createElement('th');
    th.textContent = h;
    head.append(th);
  }
  const tb = t.createTBody();
  const series = seriesOf(body, stat, dates);
  dates.forEach((d, i) => {
    const row = tb.insertRow();
    row.insertCell().textContent = d;
    for (const s of series) row.insertCell().textContent = s[i] == null ? '' : s[i].toFixed(1);
  });
}

async function main() {
  try {
    await loadDatasets();
    await loadMap();
  } catch (e) {
    status(`cannot load: ${e.message}`, true);
    return;
  }
  $('dataset').addEventListener('change', () => {
    datasetChanged();
    loadStats();
  });
  for (const id of ['variable', 'from', 'to', 'zone']) $(id).addEventListener('change', loadStats);
  document.body.dataset.ready = 'true';
}

main();
