// The public API, as the page reads it: JSON GETs relative to the folder above /app/, a problem's
// title and detail as the error, and a busy flag on the element that waits.

const API = new URL('../', location.href);

/** An API problem (RFC 9457): `title`, `detail` and `status`, as the page shows them. */
export class Problem extends Error {
  constructor(status, title, detail) {
    super(detail ? `${title}: ${detail}` : title);
    this.status = status;
    this.title = title;
    this.detail = detail ?? '';
  }
}

/** The absolute URL of an API path with query parameters (undefined values left out). */
export function apiUrl(path, params = {}) {
  const u = new URL(path, API);
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v))
      for (const x of v) u.searchParams.append(k, x); // a repeated parameter
    else u.searchParams.set(k, v);
  }
  return u;
}

/** Fetch; a problem+json answer (any status not ok) or a network failure throws a Problem. */
async function send(url, init) {
  let r;
  try {
    r = await fetch(url, init);
  } catch (err) {
    const e = /** @type {Error} */ (err);
    if (e.name === 'AbortError') throw e;
    throw new Problem(0, 'The snowdb server did not answer', e.message);
  }
  if (!r.ok) {
    const body = await r.json().catch(() => null);
    throw new Problem(r.status, body?.title ?? `${r.status} ${r.statusText}`, body?.detail);
  }
  return r;
}

/** GET JSON; a problem+json answer (or a network failure) throws a Problem. */
export async function getJson(path, params, signal) {
  const url = path instanceof URL ? path : apiUrl(path, params);
  const r = await send(url, { headers: { Accept: 'application/json' }, signal });
  return r.json().catch(() => null);
}

/** POST GeoJSON, read JSON back; a problem+json answer (or a network failure) throws a Problem. */
export async function postJson(path, params, body) {
  const r = await send(apiUrl(path, params), {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/geo+json' },
    body: JSON.stringify(body),
  });
  return r.json().catch(() => null);
}

/** Rows of RFC 4180 CSV text (quoted fields may hold commas, quotes and line ends). */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') field += text[++i];
      else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** A cell of the basin table as a number, or undefined when empty. */
const num = (s) => (s === '' ? undefined : Number(s));

/**
 * Every basin from the basin table (`/pourpoints?f=csv`, one request whatever the count), as
 * features without geometry: `box` [w, s, e, n] and the list's properties (outlines come by view).
 */
export async function getBasins() {
  const r = await send(apiUrl('pourpoints', { f: 'csv' }));
  const [head, ...rows] = parseCsv(await r.text());
  const at = Object.fromEntries((head ?? []).map((k, i) => [k, i]));
  return rows.map((c) => ({
    type: 'Feature',
    id: c[at.triplet],
    geometry: null,
    box: ['west', 'south', 'east', 'north'].map((k) => Number(c[at[k]])),
    properties: {
      name: c[at.name],
      area_meters: Number(c[at.area_meters]),
      pourpoint: [Number(c[at.lon]), Number(c[at.lat])],
      ...(c[at.outlet] === 'false' ? { outlet: false } : {}),
      outlet_outside_m: num(c[at.outlet_outside_m]),
      area_vs_declared_percent: num(c[at.area_vs_declared_percent]),
      coverage: Object.fromEntries(
        (c[at.coverage] ?? '')
          .split(' ')
          .filter(Boolean)
          .map((w) => w.split(':')),
      ),
    },
  }));
}

/** Every feature of a paged GeoJSON collection, following its `next` links. */
export async function getAllFeatures(path, params) {
  let url = apiUrl(path, params);
  const features = [];
  for (;;) {
    const page = await getJson(url);
    features.push(...page.features);
    const next = page.links?.find((l) => l.rel === 'next');
    if (!next) return features;
    url = new URL(next.href);
  }
}

/**
 * Run `load` with `el` marked busy (aria-busy and a visible "loading…"), then show its error as
 * the problem's title and detail in `el`'s status line. Resolves to the result, or null on error.
 * A newer call on the same element supersedes an older one (its result is dropped).
 */
export async function withBusy(el, load) {
  const ticket = String(Number(el.dataset.ticket ?? 0) + 1);
  el.dataset.ticket = ticket;
  const status = el.querySelector(':scope > .status');
  el.setAttribute('aria-busy', 'true');
  if (status) {
    status.textContent = 'loading…';
    status.className = 'status busy';
  }
  try {
    const out = await load();
    if (el.dataset.ticket !== ticket) return null;
    if (status) {
      status.textContent = '';
      status.className = 'status';
    }
    return out;
  } catch (err) {
    const e = /** @type {Error} */ (err);
    if (el.dataset.ticket !== ticket || e.name === 'AbortError') return null;
    if (status) {
      status.textContent = e instanceof Problem ? e.message : `Something went wrong: ${e.message}`;
      status.className = 'status error';
    }
    return null;
  } finally {
    if (el.dataset.ticket === ticket) el.removeAttribute('aria-busy');
  }
}
