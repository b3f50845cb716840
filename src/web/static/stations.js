// Stations beside the grid on the page: the SNOTEL sites and snow courses inside and near the chosen
// basin (a table with each one's SWE and % of median on the as-of date, the grid cell holding it
// and station ÷ cell, and the basin's station index), their SWE as lines on the season chart, and their elevations marked on the elevation
// bands of the by-zone view. Nothing shows when the database has no stations synced.
import { getJson, Problem } from './api.js';
import { escapeHtml } from './map.js';
import { convert, num } from './units.js';

const seg = encodeURIComponent;
/** Stations this far outside a basin are listed beside those inside it (km). */
export const NEAR_KM = 10;
/** Most station lines on the season chart. */
const MAX_LINES = 3;

/** @type {Map<string, Promise<any>>} */
const placed = new Map();

/** The stations inside and within NEAR_KM of a basin, with the bands of `stepFt` (null: none synced). */
export function stationsNear(id, stepFt = 1000) {
  const key = `${id}|${stepFt}`;
  if (!placed.has(key))
    placed.set(
      key,
      getJson(`pourpoints/${seg(id)}/stations`, { within_km: NEAR_KM, band_step_ft: stepFt }).catch((e) => {
        placed.delete(key);
        if (e instanceof Problem && e.status === 409) return null; // no stations synced
        throw e;
      }),
    );
  return /** @type {Promise<any>} */ (placed.get(key));
}

/** A station's values (metric: mm) over `start`–`end`. */
const seriesOf = (t, start, end) => getJson(`stations/${seg(t)}`, { datetime: `${start}/${end}` });

/**
 * The season chart's station lines: the recorded SNOTEL sites inside the basin, highest first (at
 * most MAX_LINES), their SWE or depth (`stat` is the chart's mean column) in the chart's unit `u`
 * by day (`at`); none for any other variable.
 */
export async function seasonLines(ctx, stat, u, start, end) {
  const element = stat.startsWith('mean_swe_')
    ? 'swe_mm'
    : stat.startsWith('mean_depth_')
      ? 'depth_mm'
      : null;
  const near = element ? await stationsNear(ctx.basin.id) : null;
  if (!near) return [];
  const sites = near.stations
    .filter((s) => s.inside && s.recorded && s.network !== 'SNOW' && s.network !== 'MSNT')
    .sort((a, b) => (b.elevation_ft ?? 0) - (a.elevation_ft ?? 0))
    .slice(0, MAX_LINES);
  const bodies = await Promise.all(sites.map((s) => seriesOf(s.triplet, start, end)));
  return sites.map((s, i) => {
    const b = bodies[i];
    const k = b.variables.indexOf(element);
    return {
      name: `${s.name} (station, ${num(ctx.units === 'us' ? s.elevation_ft : s.elevation_m)} ${ctx.units === 'us' ? 'ft' : 'm'})`,
      triplet: s.triplet,
      at: (d) => convert(b.results[d]?.[k] ?? null, u),
      /** @type {(number | null)[]} */ values: [],
    };
  });
}

/** The band a zone card shows (an elevation band in ft), and the stations whose elevation falls in it. */
export function stationsInBand(near, zone) {
  const z = zone[0];
  if (!near || zone.length !== 1 || z?.kind !== 'band' || z.layer !== 'terrain.elevation') return [];
  return near.stations.filter((s) => s.band && s.band.min === z.min && s.band.max === z.max);
}

/** A zone card's line of station marks. */
export function bandMarks(stations, units) {
  if (stations.length === 0) return '';
  const items = stations.map(
    (s) =>
      `<span class="station-mark" data-triplet="${escapeHtml(s.triplet)}">▲ ${escapeHtml(s.name)} ${num(units === 'us' ? s.elevation_ft : s.elevation_m)} ${units === 'us' ? 'ft' : 'm'}${s.inside ? '' : ` (${num(s.distance_km)} km out)`}</span>`,
  );
  return `<br>${items.join(' ')}`;
}

/**
 * The station table under the views: each station inside and near the basin, its elevation and
 * band, and its latest SWE up to the as-of date with % of median; then the basin's station index.
 */
export async function stationPanel(ctx, els) {
  const near = await stationsNear(ctx.basin.id);
  // Each write waits for answers: by then another basin or an area may be on show (then nothing).
  if (!els.current()) return;
  els.section.hidden = !near;
  if (!near) return;
  const us = ctx.units === 'us';
  const wy = Number(ctx.date.slice(0, 4)) + (ctx.date.slice(5, 7) >= '10' ? 1 : 0);
  const since = `${wy - 1}-10-01`;
  const latest = await Promise.all(
    near.stations.map((s) =>
      s.recorded
        ? getJson(`stations/${seg(s.triplet)}`, { datetime: `${since}/${ctx.date}`, units: ctx.units }).catch(
            () => null,
          )
        : null,
    ),
  );
  const index = await getJson(`pourpoints/${seg(ctx.basin.id)}/station-index`, {
    datetime: `${ctx.date}/${ctx.date}`,
  });
  const [pct, used] = index.results[ctx.date] ?? [null, 0];
  if (!els.current()) return;
  els.note.textContent =
    near.stations.length === 0
      ? `No station inside ${ctx.basin.id} or within ${NEAR_KM} km of it.`
      : `${near.stations.filter((s) => s.inside).length} stations inside the basin, ${near.stations.filter((s) => !s.inside).length} within ${NEAR_KM} km. Station index on ${ctx.date}: ${pct === null ? 'none (no site with a value and a median)' : `${num(pct)} % of median (${used} sites inside; NRCS: Σ SWE ÷ Σ median)`}.`;
  const unit = us ? 'in' : 'mm';
  /** Each station's latest day with SWE up to the as-of date, and that day's values. */
  const lastOf = (b) => {
    const day = b
      ? Object.keys(b.results)
          .filter((d) => b.results[d][0] !== null)
          .at(-1)
      : undefined;
    return { day, row: day ? b.results[day] : null };
  };
  // The grid cell holding each station on that day, in this dataset (none where it lacks the day,
  // or has neither SWE nor depth to compare: not asked then).
  const comparable = ctx.dataset.variables.some((v) => v.key === 'swe' || v.key === 'depth');
  const cells = await Promise.all(
    near.stations.map((s, i) => {
      const { day } = lastOf(latest[i]);
      return day === undefined || !comparable
        ? null
        : getJson(`datasets/${seg(ctx.dataset.name)}/stations/${seg(s.triplet)}`, {
            datetime: day,
            units: ctx.units,
          }).catch(() => null);
    }),
  );
  const rows = near.stations.map((s, i) => {
    const { day, row } = lastOf(latest[i]);
    const grid = cells[i]?.results[day ?? ''] ?? null;
    // What a forecaster compares comes first (SWE, % of median, the grid cell); where the station
    // stands after, in fewer and narrower columns, so the table fits its half of a 1280-px page.
    return [
      { html: `${escapeHtml(s.name)}<br><small>${escapeHtml(s.triplet)}</small>` },
      row ? row[0] : null,
      row ? row.at(-1) : null,
      grid ? grid[1] : null,
      grid ? grid[2] : null,
      day ?? '',
      {
        html: `${escapeHtml(num(us ? s.elevation_ft : s.elevation_m))}${s.band ? `<br><small>${escapeHtml(`${s.band.min}–${s.band.max} ft`)}</small>` : ''}`,
      },
      s.inside ? 'inside' : `${num(s.distance_km)} km out`,
    ];
  });
  const columns = [
    'station',
    `SWE (${unit})`,
    '% of median',
    `cell (${unit})`,
    'station ÷ cell',
    'on',
    `elevation (${us ? 'ft' : 'm'}), band`,
    'where',
  ];
  if (!els.current()) return;
  els.table.innerHTML = `<thead><tr>${columns.map((c) => `<th scope="col">${escapeHtml(c)}</th>`).join('')}</tr></thead><tbody>${rows
    .map(
      (r) =>
        `<tr>${r.map((v) => `<td>${typeof v === 'object' && v !== null ? v.html : escapeHtml(typeof v === 'number' ? num(v) : (v ?? '–'))}</td>`).join('')}</tr>`,
    )
    .join('')}</tbody>`;
}

/** The share of a basin's area in elevation bands no station stands in (BAGIS's "which bands do the sites represent"). */
export function unrepresentedText(near, zones) {
  if (!near) return '';
  const bands = zones.filter((z) => z.zone.length === 1 && z.zone[0].kind === 'band');
  const total = zones.reduce((t, z) => t + z.area_m2, 0);
  const empty = bands.filter((z) => stationsInBand(near, z.zone).length === 0);
  if (bands.length === 0 || total === 0) return '';
  const share = (100 * empty.reduce((t, z) => t + z.area_m2, 0)) / total;
  return empty.length === 0
    ? ' Every elevation band has a station (▲).'
    : ` No station stands in ${empty.length} of ${bands.length} bands (${share.toFixed(0)} % of the basin): ▲ marks the stations within ${NEAR_KM} km.`;
}
