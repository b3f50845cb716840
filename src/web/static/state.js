// The page's state, held in the URL's query so that a view can be bookmarked, shared and restored:
// dataset, variable, measure, date, basin, zone, view, units, years, ref, q (search), sort, with
// (other datasets drawn beside the chosen one on the season chart) and colour (the map's: day or peak).

const KEYS = [
  'dataset',
  'variable',
  'measure',
  'date',
  'ref',
  'units',
  'basin',
  'view',
  'zone',
  'years',
  'q',
  'sort',
  'with',
  'colour',
];
const VIEWS = ['season', 'zones', 'years'];

/** The state in the current URL (absent keys are undefined; lists are arrays). */
export function readUrl() {
  const p = new URLSearchParams(location.search);
  const s = {};
  for (const k of KEYS) if (p.has(k)) s[k] = p.get(k);
  s.years = s.years ? s.years.split(',').map(Number).filter(Number.isInteger) : undefined;
  s.with = s.with ? s.with.split(',').filter(Boolean) : undefined;
  if (!VIEWS.includes(s.view)) s.view = 'season';
  if (s.units !== 'us' && s.units !== 'metric') s.units = undefined;
  if (s.measure !== 'mean' && s.measure !== 'total') s.measure = 'mean';
  if (s.colour !== 'peak') s.colour = undefined; // the default: % of median on the date
  return s;
}

/** Write `state` to the URL: a new history entry when `push` (a basin chosen), else replaced. */
export function writeUrl(state, push = false) {
  const p = new URLSearchParams();
  for (const k of KEYS) {
    const v = state[k];
    if (v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    p.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  const url = `${location.pathname}?${p}`.replace(/\?$/, '');
  if (url === `${location.pathname}${location.search}`) return;
  if (push) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
}

/** `YYYY..YYYY` → {start, end}, or null. */
export function parseRef(text) {
  const m = /^(\d{4})(?:\.\.(\d{4}))?$/.exec(text ?? '');
  if (!m) return null;
  const start = Number(m[1]);
  const end = Number(m[2] ?? m[1]);
  return start <= end ? { start, end } : null;
}

/** Water year (named by its end) of an ISO date. */
export const waterYearOf = (iso) => Number(iso.slice(0, 4)) + (iso.slice(5, 7) >= '10' ? 1 : 0);

/** The default reference: every water year with dates before `current`, as `YYYY..YYYY` (or null). */
export function defaultRef(waterYears, current) {
  const past = waterYears.map((w) => w.water_year).filter((y) => y < current);
  return past.length === 0 ? null : `${past[0]}..${past.at(-1)}`;
}
