// snowdb's web page for forecasters: every basin's % of median on a map and in a list, and for a
// chosen basin its season against normal, by zone, and year against year. It reads only the
// public API (the folder above /app/); its state lives in the URL.
import { getBasins, getJson, withBusy } from './api.js';
import { BasinList } from './list.js';
import { BasinMap } from './map.js';
import { defaultRef, parseRef, readUrl, waterYearOf, writeUrl } from './state.js';
import { stationPanel } from './stations.js';
import { renderTable, setDownloads } from './table.js';
import { areaText, convert, num, unitOf } from './units.js';
import { areaView, columnOf, seasonView, yearsView, zonesView } from './views.js';

/** A form control or section of the page by id (the page's ids are its own: each is there). @type {(id: string) => HTMLInputElement} */
const $ = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
const seg = encodeURIComponent;
const state = readUrl();
const app = {
  state,
  datasets: new Map(),
  features: new Map(),
  charts: {},
  shown: null,
  /** An uploaded area on show instead of a basin. @type {{ name: string, geometry: unknown } | null} */
  area: null,
};
window.snowdb = app; // for scripts and tests: the state, the drawn charts and the table on show
const VIEWS = { season: seasonView, zones: zonesView, years: yearsView };
/** What the basin mean of a variable measures, by its unit. */
const MEAN_LABEL = {
  mm: 'depth (basin mean)',
  kg_per_m2: 'depth of water (basin mean)',
  percent: 'share of the area (basin mean, %)',
  k: 'temperature (basin mean)',
};
/** Basin outlines are simplified to about 200 m: finer than a pixel at the zooms a basin fills. */

const dataset = () => app.datasets.get(state.dataset);
const ctx = () => ({
  ...state,
  dataset: dataset(),
  basin: app.features.get(state.basin),
  units: state.units ?? 'us',
});
const save = (push = false) => writeUrl(state, push);

/** The dataset with the most water years (the one that has normals), else the first. */
function defaultDataset() {
  const all = [...app.datasets.values()];
  return all.reduce((a, b) => (b.dates.water_years.length > a.dates.water_years.length ? b : a), all[0])
    ?.name;
}

const days = (n) => `${n} day${n === 1 ? '' : 's'}`;

/** "As of" the dataset's newest date, and a warning when it is older than the dataset usually is. */
function showFreshness(d) {
  const f = d.freshness;
  const el = $('freshness');
  el.classList.toggle('late', f.late);
  el.textContent =
    f.newest_date === null
      ? `${d.name}: no date ingested yet`
      : `${d.name} as of ${f.newest_date} (${days(f.age_days)} ago)${
          f.late
            ? ` — late: ${d.name} is usually ${days(f.usual_lag_days)} behind; newer dates are missing (check 'snowdb update')`
            : ''
        }`;
}

/** Checkboxes for the other active datasets holding the variable: drawn beside it on the season chart. */
function fillBeside() {
  const others = [...app.datasets.values()].filter(
    (d) => d.name !== state.dataset && d.variables.some((v) => v.key === state.variable),
  );
  state.with = (state.with ?? []).filter((n) => others.some((d) => d.name === n));
  const box = $('beside');
  box.hidden = others.length === 0;
  box.replaceChildren(box.querySelector('legend') ?? document.createElement('legend'));
  for (const d of others) {
    const input = Object.assign(document.createElement('input'), {
      type: 'checkbox',
      value: d.name,
      checked: state.with.includes(d.name),
    });
    input.addEventListener('change', () => {
      state.with = [...box.querySelectorAll('input:checked')].map(
        (i) => /** @type {HTMLInputElement} */ (i).value,
      );
      save();
      panel();
    });
    const label = document.createElement('label');
    label.append(input, ` ${d.name}`);
    box.append(label);
  }
}

/** Fill the controls from the dataset, keeping the state's choices where the dataset has them. */
function fillControls() {
  const d = dataset();
  showFreshness(d);
  const keys = d.variables.map((v) => v.key);
  if (!keys.includes(state.variable)) state.variable = keys.includes('swe') ? 'swe' : keys[0];
  fillBeside();
  const has = (reducer) =>
    d.variables.some((v) => v.key === state.variable && v.statistics.some((s) => s.reducer === reducer));
  if (!has(state.measure)) state.measure = has('mean') ? 'mean' : 'total';
  options(
    $('variable'),
    keys.map((k) => [k, `${k} (${d.variables.find((v) => v.key === k).description})`]),
    state.variable,
  );
  const stats = d.variables.find((v) => v.key === state.variable).statistics;
  const unit = stats.find((s) => s.reducer === 'mean')?.unit;
  const totalUnit = stats.find((s) => s.reducer === 'total')?.unit;
  options(
    $('measure'),
    /** @type {[string, string][]} */ ([
      ['mean', MEAN_LABEL[unit] ?? 'basin mean'],
      ['total', totalUnit === 'm2' ? 'snow-covered area (basin total)' : 'water volume (basin total)'],
    ]).filter(([r]) => has(r)),
    state.measure,
  );
  // The units choice applies to depths and volumes only (a snow-cover fraction stays in %).
  const convertible = ['mm', 'kg_per_m2', 'm3', 'k'].includes(unit) || has('total');
  $('units').disabled = !convertible;
  $('units').title = convertible ? '' : `${state.variable} is in ${unit}: no unit to choose`;
  const { first, last, water_years: wys } = d.dates;
  if (!state.date || state.date < first || state.date > last) state.date = last;
  // A date the URL names that is no calendar day stays in the state: the API's problem explains it.
  const real =
    !Number.isNaN(Date.parse(`${state.date}T00:00:00Z`)) &&
    new Date(`${state.date}T00:00:00Z`).toISOString().startsWith(state.date);
  Object.assign($('date'), { min: first, max: last, value: real ? state.date : '' });
  const current = waterYearOf(state.date);
  const past = wys.map((w) => w.water_year).filter((y) => y < current);
  const ref = parseRef(state.ref);
  if (!ref || !past.includes(ref.start) || !past.includes(ref.end))
    state.ref = defaultRef(wys, current) ?? undefined;
  const r = parseRef(state.ref);
  for (const [id, v] of /** @type {[string, number | undefined][]} */ ([
    ['ref-start', r?.start],
    ['ref-end', r?.end],
  ]))
    options(
      $(id),
      past.map((y) => [y, `WY ${y}`]),
      v,
    );
  $('ref').disabled = past.length === 0;
  const zones = zoneChoices(d);
  if (!zones.some(([v]) => v === state.zone)) state.zone = zones[0]?.[0];
  options($('zone'), zones, state.zone);
  if (!state.years)
    state.years = wys
      .map((w) => w.water_year)
      .filter((y) => y <= current)
      .slice(-3);
  $('years-pick').replaceChildren(
    ...wys.map(({ water_year: y, dates }) => {
      const label = document.createElement('label');
      label.innerHTML = `<input type="checkbox" value="${y}"${state.years.includes(y) ? ' checked' : ''}> WY ${y} <small>(${dates} d)</small>`;
      return label;
    }),
  );
  for (const u of /** @type {NodeListOf<HTMLInputElement>} */ (
    document.querySelectorAll('input[name=units]')
  ))
    u.checked = u.value === (state.units ?? 'us');
}

/**
 * Fill a select with (value, label) pairs and select `value`.
 * @param {HTMLSelectElement | HTMLInputElement} select
 * @param {readonly (readonly [string | number, string])[]} pairs
 * @param {string | number} [value]
 */
function options(select, pairs, value) {
  select.replaceChildren(...pairs.map(([v, label]) => new Option(label, String(v))));
  if (value !== undefined) select.value = String(value);
}

/** Zone axes the dataset has layers for, with a few useful parameters each. */
/** Zone layers in people's words (the API's keys stay in the URL). */
const ZONE_WORDS = {
  'terrain.elevation': 'Elevation',
  'terrain.aspect': 'Aspect',
  'terrain.aspect_entropy': 'Aspect certainty',
  'terrain.northness': 'Northness (−1 south … 1 north)',
  'terrain.eastness': 'Eastness (−1 west … 1 east)',
  'landcover.forest_cover': 'Forest cover',
};

function zoneChoices(d) {
  const out = [];
  for (const z of d.zones.filter((x) => x.present)) {
    const words = ZONE_WORDS[z.key] ?? z.key;
    if (z.kind === 'banded')
      for (const s of [500, 1000, 2000])
        out.push([`${z.key}:${z.param}=${s}`, `${words}, ${s}-${z.unit} bands`]);
    else if (z.kind === 'categorical')
      out.push([z.key, `${words} (${z.classes.map((c) => c.label).join(', ')})`]);
    else if (z.kind === 'bucketed') out.push([`${z.key}:${z.param}=4`, `${words}, 4 classes`]);
    else if (z.kind === 'threshold')
      out.push([
        `${z.key}:${z.param}=${z.default}`,
        `${words}, below and above ${z.default}${z.unit === '%' ? ' %' : ` ${z.unit ?? ''}`}`,
      ]);
  }
  out.sort(([a], [b]) => (a.includes('band_step_ft=1000') ? -1 : b.includes('band_step_ft=1000') ? 1 : 0));
  return out;
}

/** Whether the map can colour by % of median peak: a water variable and reference years. */
function peakColours() {
  const v = dataset().variables.find((x) => x.key === state.variable);
  return Boolean(state.ref) && v.statistics.some((s) => s.unit === 'm3');
}

/**
 * The map's colours and the list's values: every basin's % of median on the as-of date, or
 * (colour=peak) its water year's peak as % of the median peak.
 */
async function overview() {
  const peak = state.colour === 'peak' && peakColours();
  $('colour-by').value = peak ? 'peak' : 'day';
  const byPeak = /** @type {HTMLOptionElement} */ (document.querySelector('#colour-by option[value=peak]'));
  byPeak.disabled = !peakColours();
  const { on, values, title } = (await (peak ? peakValues() : dayValues())) ?? {};
  if (!values) return;
  const c = ctx();
  app.map.colour(values);
  app.map.legendTitle(title);
  app.list.units = c.units;
  app.list.values(values, peak ? `peak, ${unitOf(meanUnit(), c.units).unit}` : columnOf(c).u.unit);
  app.list.render(state.basin);
  const ref = state.ref?.replace('..', '–');
  $('overview-note').textContent = !state.ref
    ? 'This dataset has no earlier water year: no % of median to colour by.'
    : peak
      ? `Colours: water year ${on}'s peak as % of the ${ref} median peak (basin means).`
      : `Colours: % of the ${ref} median on ${on ?? '–'}.`;
}

/** The unit of the chosen variable's mean. */
const meanUnit = () =>
  dataset()
    .variables.find((x) => x.key === state.variable)
    .statistics.find((s) => s.reducer === 'mean')?.unit;

/** Every basin's value and % of median on the as-of date (the last held in the 31 days to it). */
async function dayValues() {
  const c = ctx();
  const { stat, u, label } = columnOf(c);
  const start = new Date(Date.parse(`${state.date}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10);
  const params = { variable: state.variable, date: `${start}/${state.date}`, last_held: 'true' };
  if (state.ref) Object.assign(params, { normals: 'true', normals_years: state.ref });
  const body = await withBusy($('overview'), () => getJson(`datasets/${seg(state.dataset)}/stats`, params));
  if (!body) return null;
  const vi = body.variables.indexOf(stat);
  const pi = body.variables.indexOf(`pct_median_${stat}`);
  const mi = body.variables.indexOf(`median_${stat}`);
  const on = body.basins
    .flatMap((b) => Object.keys(b.results))
    .sort()
    .at(-1);
  const values = new Map();
  for (const b of body.basins) {
    const row = b.results[on]?.[0];
    values.set(b.pourpoint, {
      value: convert(row?.[vi] ?? null, u),
      pct: pi < 0 ? null : (row?.[pi] ?? null),
      median: mi < 0 ? null : (row?.[mi] ?? null),
    });
  }
  const title = on ? `${label}, % of median on ${on}` : `no data in the 31 days to ${state.date}`;
  return { on, values, title };
}

/** Every basin's peak of the as-of date's water year, as % of its median peak. */
async function peakValues() {
  const wy = waterYearOf(state.date);
  const params = {
    variable: state.variable,
    water_year: String(wy),
    normals: 'true',
    normals_years: state.ref,
  };
  const body = await withBusy($('overview'), () =>
    getJson(`datasets/${seg(state.dataset)}/water-years`, params),
  );
  if (!body) return null;
  const mean = body.variables[0].slice('peak_'.length); // mean_swe_mm
  const col = (name) => body.variables.indexOf(name);
  const u = unitOf(meanUnit(), ctx().units);
  const values = new Map();
  for (const b of body.basins) {
    const row = b.results[String(wy)]?.[0];
    values.set(b.pourpoint, {
      value: convert(row?.[col(`peak_${mean}`)] ?? null, u),
      pct: row?.[col(`pct_median_peak_${mean}`)] ?? null,
      median: row?.[col(`median_peak_${mean}`)] ?? null,
    });
  }
  return { on: wy, values, title: `Peak of water year ${wy}, % of the median peak` };
}

/** An uploaded area's panel: its season (the one view a drawn polygon has), its table and downloads. */
async function areaPanel() {
  const c = ctx();
  $('panel').hidden = false;
  $('pick-hint').hidden = true;
  $('basin-title').textContent = `Your area: ${app.area?.name}`;
  $('basin-facts').textContent =
    'Not a basin of the database: a polygon you uploaded (choose a basin to leave it).';
  $('basin-nest').replaceChildren();
  for (const t of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[role=tab]')))
    t.hidden = t.dataset.view !== 'season';
  for (const v of Object.keys(VIEWS)) $(`view-${v}`).hidden = v !== 'season';
  $('panel').classList.add('area'); // no datasets beside a drawn area
  // Nothing of the basin shown before stays: its stations, its numbers, its season's words.
  $('stations').hidden = true;
  $('stations-table').replaceChildren();
  $('stations-note').textContent = '';
  for (const id of ['season-title', 'season-note', 'season-peak']) $(id).textContent = '';
  app.charts.season?.destroy?.();
  const els = {
    chart: $('season-chart'),
    title: $('season-title'),
    note: $('season-note'),
    peak: $('season-peak'),
  };
  const area = app.area;
  if (!area) return;
  const r = c.dataset ? await withBusy($('panel'), () => areaView(c, els, area)) : null;
  app.charts.season = r?.chart;
  show(r?.shown ?? null);
}

/** Up and down: the basin this one lies in, and the basins directly inside it, as links that choose them. */
async function nestLinks(id) {
  const box = $('basin-nest');
  box.replaceChildren();
  const detail = await getJson(`pourpoints/${seg(id)}`).catch(() => null);
  if (!detail || state.basin !== id) return;
  const { parents = [], children = [] } = detail.properties;
  const link = (t) => {
    const a = Object.assign(document.createElement('a'), {
      href: '#',
      textContent: app.features.get(t)?.properties.name ?? t,
    });
    a.dataset.triplet = t;
    a.addEventListener('click', (e) => {
      e.preventDefault();
      choose(t);
    });
    return a;
  };
  const line = (words, ids) => {
    const p = document.createElement('span');
    p.append(words);
    for (const [i, t] of ids.entries()) p.append(...(i > 0 ? [', '] : []), link(t));
    return p;
  };
  if (parents.length > 0) box.append(line('Inside: ', [parents[0]]));
  if (parents.length > 0 && children.length > 0) box.append(' · ');
  if (children.length > 0) box.append(line(`Holds ${children.length}: `, children));
}

/** Read an uploaded GeoJSON file as the area on show. */
async function upload(file) {
  let geometry;
  try {
    geometry = JSON.parse(await file.text());
  } catch (e) {
    $('panel-status').textContent = `${file.name} is not JSON: ${/** @type {Error} */ (e).message}`;
    $('panel-status').className = 'status error';
    $('panel').hidden = false;
    return;
  }
  await showArea(file.name, geometry);
}

/** Show an area (uploaded or drawn) in the panel and on the map instead of a basin. */
async function showArea(name, geometry) {
  app.area = { name, geometry };
  state.basin = undefined;
  save();
  app.map.choose(null, false);
  app.map.showArea(geometry);
  app.list.render();
  await areaPanel();
}

/** The chosen basin's panel: title, facts, and the view on show with its table and downloads. */
async function panel() {
  if (app.area && !state.basin) return areaPanel();
  $('panel').classList.remove('area');
  for (const t of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[role=tab]')))
    t.hidden = false;
  const c = ctx();
  const f = c.basin;
  for (const t of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[role=tab]')))
    t.setAttribute('aria-selected', String(t.dataset.view === state.view));
  for (const v of Object.keys(VIEWS)) $(`view-${v}`).hidden = v !== state.view;
  $('panel').hidden = !f;
  $('pick-hint').hidden = Boolean(f);
  if (!f) return;
  $('basin-title').textContent = `${f.properties.name} (${f.id})`;
  const coverage = f.properties.coverage?.[state.dataset] ?? 'none';
  const parts = f.id.split(':');
  const where = parts.length === 3 ? `state ${parts[1]}` : `set ${parts[0]}`; // a triplet, or <set>:<id>
  const qa = [
    f.properties.outlet === false ? 'no outlet (imported polygon)' : '',
    f.properties.outlet_outside_m > 1000
      ? `outlet ${(f.properties.outlet_outside_m / 1000).toFixed(1)} km outside the polygon`
      : '',
    typeof f.properties.area_vs_declared_percent === 'number'
      ? `${f.properties.area_vs_declared_percent >= 0 ? '+' : ''}${f.properties.area_vs_declared_percent.toFixed(1)} % against its declared area`
      : '',
  ].filter(Boolean);
  const facts = [areaText(f.properties.area_meters, c.units), where, ...qa].join(' · ');
  $('basin-facts').textContent = c.dataset
    ? `${facts} · ${state.dataset} covers ${coverage === 'full' ? 'all' : coverage === 'partial' ? 'part' : 'none'} of it`
    : facts;
  nestLinks(f.id);
  const els = {
    season: {
      chart: $('season-chart'),
      title: $('season-title'),
      note: $('season-note'),
      peak: $('season-peak'),
      beside: $('beside'),
    },
    zones: { grid: $('zones-grid'), note: $('zones-note'), key: $('zones-key') },
    years: { chart: $('years-chart'), doy: $('doy-table') },
  }[state.view];
  for (const chart of [app.charts[state.view]].flat()) chart?.destroy?.();
  if (!c.dataset || coverage === 'none') {
    $('panel-status').textContent = c.dataset
      ? `The ${state.dataset} dataset does not cover this basin: choose another dataset.`
      : 'No active dataset yet: there is nothing to show for this basin.';
    $('panel-status').className = 'status error';
    show(null);
    return;
  }
  // The stations beside the grid load beside the view (a failure there leaves the view alone).
  // Written only while this basin is on show: an area or another basin chosen meanwhile wins.
  const current = () => state.basin === f.id && app.area === null;
  stationPanel(c, {
    section: $('stations'),
    note: $('stations-note'),
    table: $('stations-table'),
    current,
  }).catch((e) => {
    if (current()) $('stations-note').textContent = `Stations could not be read: ${e.message}`;
  });
  const r = await withBusy($('panel'), () => VIEWS[state.view](c, els));
  if (!current()) return; // an area or another basin is on show now: its panel writes
  if (!r) return show(null);
  app.charts[state.view] = r.chart ?? r.charts;
  if (r.doy) renderTable($('doy-table'), r.doy, num);
  show(r.shown);
}

function show(shown) {
  app.shown = shown;
  renderTable($('numbers'), shown, num);
  setDownloads($('download-csv'), $('download-json'), shown);
}

/** Choose a basin (from the map or the list): zoom, mark it in the list, load its panel. */
function choose(triplet, push = true) {
  app.area = null; // a basin replaces an uploaded or drawn area
  app.map.showArea(null);
  state.basin = triplet;
  save(push);
  app.map.choose(triplet);
  app.list.render(triplet);
  panel();
  bringPanelIntoSight();
}

/** On a narrow screen the panel sits below the map and list: scroll to it once a basin is chosen. */
function bringPanelIntoSight() {
  const top = $('panel').getBoundingClientRect().top;
  if (top > innerHeight * 0.6 || top < 0) $('panel').scrollIntoView({ block: 'start' });
}

/** Wire a control: on change, update the state, write the URL, and refresh what depends on it. */
function on(id, event, apply, refresh) {
  $(id).addEventListener(event, (e) => {
    apply(e);
    save();
    refresh();
  });
}

const everything = () => {
  fillControls();
  overview();
  panel();
};

async function main() {
  app.map = new BasinMap('map', (t) => choose(t));
  app.list = new BasinList(
    $('basins'),
    $('search'),
    (t) => choose(t),
    (sort) => {
      state.sort = sort;
      save();
    },
  );
  $('search').value = state.q ?? '';
  app.list.setSort(state.sort);
  const loaded = await withBusy($('overview'), async () => {
    const [list, features] = await Promise.all([getJson('datasets'), getBasins(), app.map.loadBasemap()]);
    const details = await Promise.all(list.datasets.map((d) => getJson(`datasets/${seg(d.name)}`)));
    for (const d of details) app.datasets.set(d.name, d);
    return features;
  });
  if (!loaded) return;
  performance.mark('snowdb:loaded'); // basins, datasets and basemap fetched
  for (const f of loaded) app.features.set(f.id, f);
  const outlines = app.map.basins(loaded); // outflow points now, outlines of the view when they come
  app.list.basins(loaded);
  performance.mark('snowdb:drawn');
  if (app.datasets.size === 0) {
    $('overview-note').textContent =
      'No active dataset yet: `snowdb dataset activate <name>` makes one visible here.';
    app.list.render();
  } else {
    if (!app.datasets.has(state.dataset)) state.dataset = defaultDataset();
    options(
      $('dataset'),
      [...app.datasets.keys()].map((k) => [k, k]),
      state.dataset,
    );
    fillControls();
    save();
    await overview();
  }
  const shared = state.basin && app.features.has(state.basin);
  if (shared) {
    app.map.choose(state.basin);
    app.list.render(state.basin);
  }
  const drawn = panel();
  if (shared) bringPanelIntoSight(); // a shared link opens on its basin's view, on a phone too
  await drawn;
  on('dataset', 'change', (e) => (state.dataset = e.target.value), everything);
  on('variable', 'change', (e) => (state.variable = e.target.value), everything);
  on(
    'measure',
    'change',
    (e) => (state.measure = e.target.value),
    () => (overview(), panel()),
  );
  on('date', 'change', (e) => (state.date = e.target.value || state.date), everything);
  on(
    'ref',
    'change',
    () =>
      (state.ref = `${$('ref-start').value}..${Math.max(Number($('ref-start').value), Number($('ref-end').value))}`),
    everything,
  );
  on(
    'units',
    'change',
    (e) => (state.units = e.target.value),
    () => (overview(), panel()),
  );
  on('zone', 'change', (e) => (state.zone = e.target.value), panel);
  $('draw-area').addEventListener('click', () => {
    $('draw-hint').hidden = false;
    app.map.draw((geometry) => {
      $('draw-hint').hidden = true;
      showArea('drawn on the map', geometry);
    });
  });
  $('area-file').addEventListener('change', (e) => {
    const f = /** @type {HTMLInputElement} */ (e.target).files?.[0];
    if (f) upload(f);
  });
  on('colour-by', 'change', (e) => (state.colour = e.target.value === 'peak' ? 'peak' : undefined), overview);
  on(
    'years-pick',
    'change',
    () =>
      (state.years = [
        .../** @type {NodeListOf<HTMLInputElement>} */ (
          document.querySelectorAll('#years-pick input:checked')
        ),
      ].map((i) => Number(i.value))),
    panel,
  );
  on(
    'search',
    'input',
    (e) => (state.q = e.target.value || undefined),
    () => {},
  );
  for (const t of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[role=tab]')))
    t.addEventListener('click', () => {
      state.view = t.dataset.view ?? 'season';
      save();
      panel();
    });
  addEventListener('popstate', () => {
    Object.assign(state, readUrl());
    if (state.basin) app.map.choose(state.basin);
    everything();
  });
  await outlines;
  document.body.dataset.ready = 'true';
}

main();
