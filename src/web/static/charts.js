// Charts (uPlot): the season against the day-of-year normals with shaded p10–p90 and min–max
// bands, one small chart per zone, and water years overlaid on a day-of-water-year axis. Every
// chart keeps its drawn arrays on `chart.data` (tests compare them with the API's numbers).
/* global uPlot */

/** Okabe–Ito colours (distinct under the common colour-vision deficiencies). */
export const PALETTE = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#000000',
  '#F0E442',
];
const THIS_YEAR = '#0b3d91';
const MEDIAN = '#222';
const SNOW_LINE = '#D55E00'; // Okabe–Ito vermilion: apart from the blues of the season
const BAND_INNER = 'rgba(110, 140, 170, 0.35)';
const BAND_OUTER = 'rgba(110, 140, 170, 0.15)';
const MONTHS = ['Oct', 'Nov', 'Dec', 'Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep'];
const DAY_S = 86400;

const iso = (s) => new Date(s * 1000).toISOString().slice(0, 10);
const fmt = (v) =>
  v === null || v === undefined ? '–' : v.toLocaleString('en-US', { maximumFractionDigits: 2 });

/** Size a chart to its element's width, now and whenever the element resizes. */
function fitWidth(el, chart, height) {
  const ro = new ResizeObserver(() => chart.setSize({ width: Math.max(260, el.clientWidth), height }));
  ro.observe(el);
  const destroy = chart.destroy.bind(chart);
  chart.destroy = () => {
    ro.disconnect();
    destroy();
  };
  return chart;
}

/** @type {Promise<unknown> | null} */
let library = null; // the promise of uPlot's script, started by the first chart

/** Load uPlot (a global) on first use: the map and list paint without it (~40 ms of script less). */
export function chartLibrary() {
  library ??= new Promise((ok, fail) => {
    const s = Object.assign(document.createElement('script'), { src: 'vendor/uPlot.iife.min.js' });
    s.onload = ok;
    s.onerror = () => {
      library = null; // the next chart tries again
      fail(new Error('the chart library (vendor/uPlot.iife.min.js) did not load'));
    };
    document.head.append(s);
  });
  return library;
}

/** A chart in `el` (call after chartLibrary() resolved). */
function make(el, opts, data, height) {
  el.replaceChildren();
  const chart = new uPlot({ width: Math.max(260, el.clientWidth || 600), height, ...opts }, data, el);
  return fitWidth(el, chart, height);
}

const line = (label, stroke, extra = {}) => ({
  label,
  stroke,
  width: 2,
  spanGaps: true,
  value: (_u, v) => fmt(v),
  ...extra,
});
const edge = (label) => ({
  label,
  stroke: 'rgba(110, 140, 170, 0.6)',
  width: 1,
  spanGaps: true,
  value: (_u, v) => fmt(v),
});

/**
 * This water year against the normals: `s` = {xs (Unix s), value, median, p10, p90, min, max}, one
 * entry per day; `unit` labels the y axis; `asOf` (Unix s) draws a vertical mark; `others`
 * ([{name, values}] aligned with s.xs): other datasets' this year, beside it.
 */
export function seasonChart(el, s, unit, label, asOf, snowline, others = []) {
  // With `snowline` ({unit, values} aligned with s.xs): the snow line on a right-hand elevation axis.
  const opts = {
    scales: { x: { time: true }, ...(snowline && { elev: {} }) },
    axes: [
      {},
      { label: `${label} (${unit})`, size: 64 },
      ...(snowline
        ? [{ scale: 'elev', side: 1, label: `snow line (${snowline.unit})`, size: 64, grid: { show: false } }]
        : []),
    ],
    series: [
      { label: 'date', value: (_u, v) => (v == null ? '' : iso(v)) },
      edge('min'),
      edge('p10'),
      line('median', MEDIAN, { dash: [6, 4], width: 1.5 }),
      edge('p90'),
      edge('max'),
      line('this year', THIS_YEAR, { width: 2.5, points: { size: 6, fill: THIS_YEAR } }),
      ...(snowline
        ? [
            line('snow line', SNOW_LINE, {
              scale: 'elev',
              dash: [2, 3],
              points: { size: 5, fill: SNOW_LINE },
            }),
          ]
        : []),
      // Other datasets beside it: this year of each, on the same axis.
      ...others.map((o, i) => {
        const c = PALETTE[(i + 2) % PALETTE.length];
        return line(o.name, c, { width: 2, points: { size: 5, fill: c } });
      }),
    ],
    bands: [
      { series: [5, 1], fill: BAND_OUTER },
      { series: [4, 2], fill: BAND_INNER },
    ],
    hooks: { draw: [(u) => mark(u, asOf)] },
  };
  const data = [
    s.xs,
    s.min,
    s.p10,
    s.median,
    s.p90,
    s.max,
    s.value,
    ...(snowline ? [snowline.values] : []),
    ...others.map((o) => o.values),
  ];
  return make(el, opts, data, 320);
}

/** A dotted vertical line at x = `at` (Unix s). */
function mark(u, at) {
  if (at === undefined) return;
  const x = u.valToPos(at, 'x', true);
  const { ctx } = u;
  ctx.save();
  ctx.strokeStyle = '#777';
  ctx.setLineDash([2, 3]);
  ctx.beginPath();
  ctx.moveTo(x, u.bbox.top);
  ctx.lineTo(x, u.bbox.top + u.bbox.height);
  ctx.stroke();
  ctx.restore();
}

/** One zone's small chart: this year and its median on the same days; a shared y range. */
export function zoneChart(el, s, unit, range) {
  const opts = {
    scales: { x: { time: true }, y: { range: () => range } },
    axes: [{ size: 30 }, { size: 56, label: unit, labelSize: 16 }],
    legend: { show: false }, // one key above the cards names both lines
    series: [
      { label: 'date', value: (_u, v) => (v == null ? '' : iso(v)) },
      line('median', MEDIAN, { dash: [6, 4], width: 1.5 }),
      line('this year', THIS_YEAR, { points: { size: 4, fill: THIS_YEAR } }),
    ],
  };
  return make(el, opts, [s.xs, s.median, s.value], 150);
}

/** Water years overlaid: x = calendar day (see calendarDay); `years` = [{year, values}] aligned with `days`. */
export function yearsChart(el, days, years, unit, label) {
  const opts = {
    scales: { x: { time: false } },
    axes: [
      {
        values: (_u, ticks) => ticks.map((d) => monthOf(d)),
        splits: () => MONTH_STARTS,
      },
      { label: `${label} (${unit})`, size: 64 },
    ],
    series: [
      { label: 'day', value: (_u, v) => (v == null ? '' : `${monthOf(v)} ${dayInMonth(v)}`) },
      ...years.map((y, i) => line(`WY ${y.year}`, PALETTE[i % PALETTE.length], { points: { size: 5 } })),
    ],
  };
  return make(el, opts, [days, ...years.map((y) => y.values)], 320);
}

/** Calendar days (see calendarDay) on which each month starts. */
const MONTH_STARTS = [0, 31, 61, 92, 123, 152, 183, 213, 244, 274, 305, 336];
const monthOf = (d) => MONTHS[MONTH_STARTS.findLastIndex((m) => m <= d)] ?? '';
const dayInMonth = (d) => Math.floor(d - MONTH_STARTS[MONTH_STARTS.findLastIndex((m) => m <= d)]) + 1;

/** Unix seconds of an ISO date at 00:00 UTC. */
export const unixDay = (isoDate) => Date.parse(`${isoDate}T00:00:00Z`) / 1000;

/**
 * An ISO date's place in a 366-day water year (1 October = 0, 29 February = 151, 1 March = 152 in
 * every year), so that the same calendar day of any two years shares an x.
 */
export function calendarDay(isoDate) {
  const md = isoDate.slice(5);
  const template = md >= '10' ? `1999-${md}` : `2000-${md}`; // water year 2000 has a 29 February
  return Math.round((unixDay(template) - unixDay('1999-10-01')) / DAY_S);
}

/** A calendar day (as calendarDay) as MM-DD. */
export const monthDay = (k) =>
  new Date((unixDay('1999-10-01') + k * DAY_S) * 1000).toISOString().slice(5, 10);
