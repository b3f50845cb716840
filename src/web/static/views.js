// The three views of one basin. Each fetches what it draws, draws it, and returns the table of the
// numbers on show: the season against normal, the same by zone, and water years side by side.
import { getJson, postJson } from './api.js';
import {
  calendarDay,
  chartLibrary,
  monthDay,
  seasonChart,
  unixDay,
  yearsChart,
  zoneChart,
} from './charts.js';
import { escapeHtml } from './map.js';
import { waterYearOf } from './state.js';
import { bandMarks, seasonLines, stationsInBand, stationsNear, unrepresentedText } from './stations.js';
import { areaText, convert, num, unitOf } from './units.js';

const seg = encodeURIComponent;
const DAY_MS = 86_400_000;

/** Every ISO date from `a` to `b`, inclusive. */
function daysFrom(a, b) {
  const out = [];
  for (let t = Date.parse(`${a}T00:00:00Z`); t <= Date.parse(`${b}T00:00:00Z`); t += DAY_MS)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** Short names for chart axes, where a variable's description runs long. */
const AXIS_WORDS = {
  swe: 'snow water equivalent',
  depth: 'snow depth',
  snow_fraction: 'snow-covered fraction',
  viewable_snow_fraction: 'viewable snow fraction',
  average_temp: 'snowpack temperature',
  precip_solid: 'solid precipitation',
  precip_liquid: 'liquid precipitation',
};

/** The stat column of the chosen variable and measure, its unit and conversion. */
export function columnOf(ctx) {
  const v = ctx.dataset.variables.find((x) => x.key === ctx.variable);
  const s = v.statistics.find((x) => x.reducer === ctx.measure) ?? v.statistics[0];
  const u = unitOf(s.unit, ctx.units);
  // Axis labels fit the chart's height: a short name, else the description up to its first '(' or ','.
  const short = AXIS_WORDS[v.key] ?? v.description.split(/ \(|,/)[0];
  const what = s.reducer !== 'total' ? short : s.unit === 'm2' ? 'snow-covered area' : `${short} volume`;
  // File names carry the unit on show: mean_swe_in in inches, total_swe_m3 in m³.
  const file = `${s.stat_name.slice(0, -s.unit.length)}${u.unit.replace('³', '3').replace('²', '2').replace('-', '_').replace('%', 'percent')}`;
  return { stat: s.stat_name, u, label: what, file };
}

const pathOf = (ctx) => `datasets/${seg(ctx.dataset.name)}/stats/${seg(ctx.basin.id)}`;
const refParams = (ctx) => (ctx.ref ? { normals: 'true', normals_years: ctx.ref } : {});
/** First and last day of the as-of date's water year that the dataset can hold. */
function seasonSpan(ctx) {
  const wy = waterYearOf(ctx.date);
  const end = `${wy}-09-30` < ctx.dataset.dates.last ? `${wy}-09-30` : ctx.dataset.dates.last;
  return { wy, start: `${wy - 1}-10-01`, end };
}
const col = (body, name) => body.variables.indexOf(name);
const at = (row, i) => (i < 0 || !row ? null : (row[i] ?? null));

/** The season chart: this water year, and the day's median, p10–p90 and min–max of the reference years. */
export async function seasonView(ctx, els) {
  const { stat, u, label, file } = columnOf(ctx);
  const { wy, start, end } = seasonSpan(ctx);
  const path = pathOf(ctx);
  const fraction = ctx.variable.endsWith('snow_fraction') && u.unit === '%';
  const statistics = ctx.dataset.variables.find((v) => v.key === ctx.variable)?.statistics ?? [];
  const water = statistics.some((x) => x.unit === 'm3');
  const mu = unitOf(statistics.find((x) => x.reducer === 'mean')?.unit, ctx.units); // the peak is a mean
  // Other datasets beside it: those asked for that cover the basin (each on its own grid).
  const beside = (ctx.with ?? []).filter((n) => (ctx.basin.properties.coverage?.[n] ?? 'none') !== 'none');
  const [stats, normals, line, peak, compared, changes] = await Promise.all([
    getJson(`${path}/date-range`, { variable: ctx.variable, datetime: `${start}/${end}`, ...refParams(ctx) }),
    ctx.ref ? getJson(`${path}/normals`, { variable: ctx.variable, normals_years: ctx.ref }) : null,
    fraction
      ? getJson(`datasets/${seg(ctx.dataset.name)}/snowline/${seg(ctx.basin.id)}/date-range`, {
          variable: ctx.variable,
          datetime: `${start}/${end}`,
        })
      : null,
    water && ctx.ref
      ? getJson(`${path}/water-years`, { variable: ctx.variable, years: String(wy), ...refParams(ctx) })
      : null,
    beside.length > 0
      ? getJson(`pourpoints/${seg(ctx.basin.id)}/compare`, {
          dataset: [ctx.dataset.name, ...beside],
          variable: ctx.variable,
          datetime: `${start}/${end}`,
        })
      : null,
    // The season's changes (they read back to 1 October): the as-of date's row is shown.
    water
      ? getJson(`${path}/changes`, { variable: ctx.variable, datetime: `${start}/${end}`, ...refParams(ctx) })
      : null,
    chartLibrary(),
  ]);
  const others = [
    ...(compared?.datasets ?? []).slice(1).map((d) => ({
      name: d.dataset,
      at: (day) => convert(at(d.results[day]?.[0], col(d, stat)), u),
      /** @type {(number | null)[]} */ values: [],
    })),
    // The basin's SNOTEL sites beside the grid (nothing without synced stations).
    ...(await seasonLines(ctx, stat, u, start, end)),
  ];
  // The snow line in the chosen units: ft (US) or m.
  const lineUnit = ctx.units === 'us' ? 'ft' : 'm';
  const lineAt = (d) => (line ? at(line.rows[d]?.[0], col(line, `snowline_${lineUnit}`)) : null);
  const days = daysFrom(start, end);
  const vi = col(stats, stat);
  // The last held date up to the as-of date (its changes are shown).
  const held = Object.keys(stats.results)
    .filter((d) => d <= ctx.date && at(stats.results[d][0], vi) !== null)
    .sort()
    .at(-1);

  const pi = col(stats, `pct_median_${stat}`);
  const n = Object.fromEntries(
    ['median', 'p10', 'p90', 'min', 'max'].map((k) => [k, normals ? col(normals, `${k}_${stat}`) : -1]),
  );
  /** @type {Record<'xs' | 'value' | 'median' | 'p10' | 'p90' | 'min' | 'max', (number | null)[]>} */
  const s = { xs: [], value: [], median: [], p10: [], p90: [], min: [], max: [] };
  const lineValues = [];
  const rows = [];
  for (const d of days) {
    const v = convert(at(stats.results[d]?.[0], vi), u);
    const nr = normals?.results[d.slice(5)]?.[0];
    const q = Object.fromEntries(Object.entries(n).map(([k, i]) => [k, convert(at(nr, i), u)]));
    if (v === null && q.median === null) continue;
    s.xs.push(unixDay(d));
    s.value.push(v);
    for (const k of Object.keys(n)) s[k].push(q[k]);
    lineValues.push(lineAt(d));
    for (const o of others) o.values.push(o.at(d));
    rows.push([
      d,
      v,
      q.median,
      at(stats.results[d]?.[0], pi),
      q.p10,
      q.p90,
      q.min,
      q.max,
      ...(line ? [lineAt(d)] : []),
      ...others.map((o) => o.at(d)),
    ]);
  }
  // % of median on the as-of date, or the last date before it with one.
  const asOf = Object.keys(stats.results)
    .filter((d) => d <= ctx.date && at(stats.results[d][0], vi) !== null)
    .sort()
    .at(-1);
  const pct = asOf && at(stats.results[asOf][0], pi);
  const median = asOf && at(stats.results[asOf][0], col(stats, `median_${stat}`));
  els.title.textContent =
    asOf === undefined
      ? `Water year ${wy}: no data up to ${ctx.date}`
      : pct === null || pct === undefined
        ? `Water year ${wy}: ${num(convert(at(stats.results[asOf][0], vi), u))} ${u.unit} on ${asOf}${ctx.ref ? (median === null || median === undefined ? ' (no median that day)' : ' (no snow at median: no % of median)') : ''}`
        : `Water year ${wy}: ${Math.round(pct)} % of median on ${asOf}`;
  els.note.textContent = [
    ctx.ref
      ? `Reference: water years ${stats.reference.start_water_year}–${stats.reference.end_water_year} (median, 10th–90th percentile and min–max of the days they hold).`
      : 'No earlier water year in this dataset: no normals to compare with.',
    compared ? besideText(compared, ctx.units) : '',
  ]
    .filter(Boolean)
    .join(' ');
  els.peak.textContent = [
    peak ? peakText(peak, mu, wy) : '',
    changes && held ? changesText(changes, held, mu, unitOf('mm', ctx.units)) : '',
    line && asOf ? lineText(line, asOf, lineUnit) : '',
  ]
    .filter(Boolean)
    .join(' ');
  const chart = seasonChart(
    els.chart,
    s,
    u.unit,
    label,
    asOf && unixDay(asOf),
    line ? { unit: lineUnit, values: lineValues } : undefined,
    others,
  );
  return {
    chart,
    shown: {
      name: `${ctx.basin.id.replaceAll(':', '-')}_${file}_WY${wy}`,
      columns: [
        'date',
        `this year (${u.unit})`,
        `median (${u.unit})`,
        '% of median',
        `p10 (${u.unit})`,
        `p90 (${u.unit})`,
        `min (${u.unit})`,
        `max (${u.unit})`,
        ...(line ? [`snow line at ${line.threshold} % (${lineUnit})`] : []),
        ...others.map((o) => `${o.name} (${u.unit})`),
      ],
      rows,
    },
  };
}

/**
 * An uploaded area's season: this water year and the day's reference median, from the drawn
 * polygon route (its coverage computed on the fly), with % of median on the as-of date.
 */
export async function areaView(ctx, els, area) {
  const { stat, u, label, file } = columnOf(ctx);
  const { wy, start, end } = seasonSpan(ctx);
  const [stats] = await Promise.all([
    postJson(
      `datasets/${seg(ctx.dataset.name)}/stats/area`,
      { variable: ctx.variable, datetime: `${start}/${end}`, ...refParams(ctx) },
      area.geometry,
    ),
    chartLibrary(),
  ]);
  const vi = col(stats, stat);
  const mi = col(stats, `median_${stat}`);
  const pi = col(stats, `pct_median_${stat}`);
  const dates = Object.keys(stats.results).sort();
  /** @type {Record<'xs' | 'value' | 'median' | 'p10' | 'p90' | 'min' | 'max', (number | null)[]>} */
  const s = { xs: [], value: [], median: [], p10: [], p90: [], min: [], max: [] };
  const rows = [];
  for (const d of dates) {
    const row = stats.results[d][0];
    const v = convert(at(row, vi), u);
    const m = convert(at(row, mi), u);
    s.xs.push(unixDay(d));
    s.value.push(v);
    s.median.push(m);
    for (const k of ['p10', 'p90', 'min', 'max']) s[k].push(null);
    rows.push([d, v, m, at(row, pi)]);
  }
  const asOf = dates.filter((d) => d <= ctx.date && at(stats.results[d][0], vi) !== null).at(-1);
  const pct = asOf && at(stats.results[asOf][0], pi);
  els.title.textContent =
    asOf === undefined
      ? `Water year ${wy}: no data up to ${ctx.date}`
      : `Water year ${wy}: ${num(convert(at(stats.results[asOf][0], vi), u))} ${u.unit} on ${asOf}${typeof pct === 'number' ? ` (${Math.round(pct)} % of median)` : ''}`;
  els.note.textContent = `${area.name}: ${areaText(stats.zones[0]?.area_m2 ?? 0, ctx.units)} on the ${ctx.dataset.name} grid, its exact coverage computed for this view (${stats.pourpoint}).${ctx.ref ? ` Dashed: the median of water years ${ctx.ref.replace('..', '–')} on each date.` : ''}`;
  els.peak.textContent = '';
  const chart = seasonChart(els.chart, s, u.unit, label, asOf && unixDay(asOf));
  return {
    chart,
    shown: {
      name: `area_${file}_WY${wy}`,
      columns: ['date', `this year (${u.unit})`, `median (${u.unit})`, '% of median'],
      rows,
    },
  };
}

/** The water year's peak against the reference years' (a water-years answer with normals, one year, whole basin). */
function peakText(body, u, wy) {
  const row = body.results[String(wy)]?.[0];
  const v = (name) => at(row, col(body, name));
  const mean = body.variables[0].slice('peak_'.length); // mean_swe_mm
  const peak = v(`peak_${mean}`);
  if (!row || peak === null || v('peak_date') === null) return `Water year ${wy}: no snow season yet.`;
  const pct = v(`pct_median_peak_${mean}`);
  const medianPeak = convert(v(`median_peak_${mean}`), u);
  const melted = v('melted_since_peak_pct');
  const meltOut = v('melt_out_date');
  return [
    `Peak ${num(convert(peak, u))} ${u.unit} on ${v('peak_date')}`,
    pct === null
      ? '(no % of the median peak: it is below the floor)'
      : `— ${Math.round(pct)} % of the median peak (${num(medianPeak)} ${u.unit}, median peak day ${v('median_peak_day')}).`,
    meltOut
      ? `Melted out on ${meltOut} (median melt-out day ${v('median_melt_out_day') ?? '–'}).`
      : `${Math.round(melted ?? 0)} % melted since the peak (median melt-out day ${v('median_melt_out_day') ?? '–'}).`,
  ].join(' ');
}

/**
 * The 1- and 7-day change on a date, gain and melt since 1 October and the water year's
 * precipitation (whole basin, means; `u` the mean's unit, `pu` precipitation's: kg/m² is mm).
 */
function changesText(body, date, u, pu) {
  const row = body.results[date]?.[0];
  const mean = body.variables[0]; // mean_swe_mm
  const v = (name, unit = u) => convert(at(row, col(body, name)), unit);
  const signed = (x) => (x === null ? '–' : `${x > 0 ? '+' : ''}${num(x)} ${u.unit}`);
  const wet = body.variables.find((x) => x.startsWith('wytd_mean_precip_'));
  // With normals: the cumulative value as % of the reference years' median on the same day.
  const ofMedian = (name) => {
    const p = at(row, col(body, `pct_median_${name}`));
    return p === null ? '' : ` (${Math.round(p)} % of median)`;
  };
  return [
    `Change to ${date}: ${signed(v(`change_1d_${mean}`))} over 1 day, ${signed(v(`change_7d_${mean}`))} over 7 days.`,
    v(`gain_${mean}`) === null
      ? 'Gain and melt since 1 October: – (a day is missing since then).'
      : `Since 1 October: gained ${num(v(`gain_${mean}`))} ${u.unit}${ofMedian(`gain_${mean}`)}, melted ${num(v(`melt_${mean}`))} ${u.unit}${ofMedian(`melt_${mean}`)}.`,
    wet === undefined
      ? ''
      : `Water-year precipitation: ${v(wet, pu) === null ? '– (a day is missing)' : `${num(v(wet, pu))} ${pu.unit}${ofMedian(wet)}`}.`,
  ]
    .filter(Boolean)
    .join(' ');
}

/** Each dataset's area for the basin on its grid, against the polygon's (grids differ). */
function besideText(body, units) {
  const parts = body.datasets.map(
    (d) =>
      `${d.dataset} ${areaText(d.basin_area_m2, units)} (${d.area_vs_polygon_percent >= 0 ? '+' : ''}${d.area_vs_polygon_percent.toFixed(2)} %)`,
  );
  return `Each dataset on its own grid; the basin's area there against the polygon's ${areaText(body.polygon_area_m2, units)}: ${parts.join(', ')}.`;
}

/** The snow line on the as-of date, or why there is none. */
function lineText(body, date, unit) {
  const row = body.rows[date]?.[0];
  const t = body.threshold;
  const v = at(row, col(body, `snowline_${unit}`));
  const why = {
    all_above: 'snow covers every elevation band',
    all_below: 'no elevation band is that snowy',
    from_above_only: 'cover falls with elevation',
    gap: 'a band without data lies where it would cross',
    no_data: 'no data',
  };
  return v === null
    ? `Snow line (${t} % cover) on ${date}: none (${why[at(row, col(body, 'crossing'))] ?? 'no data'}).`
    : `Snow line (${t} % cover) on ${date}: ${num(v)} ${unit}.`;
}

/** The zone label of one cell of a stats answer. */
export function zoneLabel(zone) {
  if (zone.length === 0) return 'whole basin';
  if (zone[0].kind === 'unclassified') return 'unclassified (outside the zone layers)';
  return zone
    .map((p) =>
      p.kind === 'band' ? `${p.min}–${p.max}${p.unit ? ` ${p.unit}` : ''}` : (p.label ?? String(p.code)),
    )
    .join(' · ');
}

/** Small multiples: the season per zone, with each zone's area and share of the basin (and, for water, its changes). */
export async function zonesView(ctx, els) {
  const { stat, u, file } = columnOf(ctx);
  const { wy, start, end } = seasonSpan(ctx);
  const statistics = ctx.dataset.variables.find((v) => v.key === ctx.variable)?.statistics ?? [];
  const water = statistics.some((x) => x.unit === 'm3');
  const [stats, changes] = await Promise.all([
    getJson(`${pathOf(ctx)}/date-range`, {
      variable: ctx.variable,
      datetime: `${start}/${end}`,
      zone: ctx.zone,
      ...refParams(ctx),
    }),
    water
      ? getJson(`${pathOf(ctx)}/changes`, {
          variable: ctx.variable,
          datetime: `${start}/${end}`,
          zone: ctx.zone,
        })
      : null,
    chartLibrary(),
  ]);
  // The as-of date's changes per zone: the last held date up to it (as on the season view).
  const held = changes
    ? Object.keys(changes.results)
        .filter((d) => d <= ctx.date && at(changes.results[d][0], col(changes, stat)) !== null)
        .sort()
        .at(-1)
    : undefined;
  const change = (d, k, name) =>
    changes ? convert(at(changes.results[d]?.[k], col(changes, name)), u) : null;

  // Stations on the elevation bands (the band width the zone token names).
  const step = Number(/band_step_ft=(\d+)/.exec(ctx.zone ?? '')?.[1] ?? 1000);
  const near =
    stats.zone_layers.length === 1 && stats.zone_layers[0] === 'terrain.elevation'
      ? await stationsNear(ctx.basin.id, step)
      : null;
  const total = stats.zones.reduce((t, z) => t + z.area_m2, 0);
  const lost = stats.zones.find((z) => z.zone[0]?.kind === 'unclassified');
  const zones = stats.zones.filter((z) => z.zone[0]?.kind !== 'unclassified');
  els.note.textContent =
    zones.length === 0
      ? 'No zone layer of this dataset reaches this basin: there is nothing to show by zone.'
      : lost
        ? `Zone layers cover ${((100 * (total - lost.area_m2)) / total).toFixed(0)} % of this basin; the rest is shown as 'unclassified'.`
        : 'Zone layers cover all of this basin.';
  els.note.textContent += unrepresentedText(near, stats.zones);
  // One key for every card: the solid line is this year, the dashed one the reference median.
  els.key.hidden = zones.length === 0 && !lost;
  els.key.innerHTML = `<i class="key-this"></i> this year${ctx.ref ? ` <i class="key-median"></i> median of water years ${escapeHtml(ctx.ref.replace('..', '–'))}` : ''} · values in ${escapeHtml(u.unit)}`;
  const dates = Object.keys(stats.results).sort();
  const vi = col(stats, stat);
  const mi = col(stats, `median_${stat}`);
  const pi = col(stats, `pct_median_${stat}`);
  const series = stats.zones.map((_, k) => ({
    xs: dates.map(unixDay),
    value: dates.map((d) => convert(at(stats.results[d][k], vi), u)),
    median: dates.map((d) => convert(at(stats.results[d][k], mi), u)),
  }));
  const top = Math.max(1e-9, ...series.flatMap((s) => [...s.value, ...s.median].filter((v) => v !== null)));
  els.grid.replaceChildren();
  const charts = [];
  stats.zones.forEach((z, k) => {
    const card = document.createElement('figure');
    card.className = 'zone-card';
    const share = (100 * z.area_m2) / total;
    const moved = held ? zoneChangeText(held, (name) => change(held, k, name), stat, u.unit) : '';
    card.innerHTML = `<figcaption><strong>${escapeHtml(zoneLabel(z.zone))}</strong><br>${areaText(z.area_m2, ctx.units)} · ${share.toFixed(1)} % of the basin${moved}${bandMarks(stationsInBand(near, z.zone), ctx.units)}</figcaption><div class="zone-chart"></div>`;
    els.grid.append(card);
    charts.push(zoneChart(card.querySelector('.zone-chart'), series[k], u.unit, [0, top * 1.05]));
  });
  const rows = dates.flatMap((d, i) =>
    stats.zones.map((z, k) => [
      d,
      zoneLabel(z.zone),
      series[k].value[i],
      series[k].median[i],
      at(stats.results[d][k], pi),
      ...(changes ? [change(d, k, `change_1d_${stat}`), change(d, k, `change_7d_${stat}`)] : []),
    ]),
  );
  return {
    charts,
    zones: stats.zones,
    shown: {
      name: `${ctx.basin.id.replaceAll(':', '-')}_${file}_by-zone_WY${wy}`,
      columns: [
        'date',
        'zone',
        `this year (${u.unit})`,
        `median (${u.unit})`,
        '% of median',
        ...(changes ? [`1-day (${u.unit})`, `7-day (${u.unit})`] : []),
      ],
      rows,
    },
  };
}

/** A zone card's line of changes on `date` (`v(name)`: a converted changes column; nothing when none is known). */
function zoneChangeText(date, v, stat, unit) {
  const signed = (x) => `${x > 0 ? '+' : ''}${num(x)} ${escapeHtml(unit)}`;
  const week = v(`change_7d_${stat}`);
  const gain = v(`gain_${stat}`);
  const parts = [
    week === null ? '' : `${signed(week)} in 7 days to ${date}`,
    gain === null ? '' : `since 1 Oct +${num(gain)} / −${num(v(`melt_${stat}`))} ${escapeHtml(unit)}`,
  ].filter(Boolean);
  return parts.length === 0 ? '' : `<br><span class="zone-change">${parts.join(' · ')}</span>`;
}

/** Water years overlaid on days since 1 October, and the as-of calendar day in every year. */
export async function yearsView(ctx, els) {
  const { stat, u, label, file } = columnOf(ctx);
  const path = pathOf(ctx);
  const all = ctx.dataset.dates.water_years.map((w) => w.water_year);
  const years = ctx.years.filter((y) => all.includes(y)).sort((a, b) => a - b);
  const [month, day] = ctx.date.slice(5).split('-').map(Number);
  const [bodies, doy] = await Promise.all([
    Promise.all(
      years.map((y) =>
        getJson(`${path}/date-range`, { variable: ctx.variable, datetime: `${y - 1}-10-01/${y}-09-30` }),
      ),
    ),
    getJson(`${path}/doy`, {
      variable: ctx.variable,
      month,
      day,
      start_year: all[0],
      end_year: all.at(-1),
      ...refParams(ctx),
    }),
    chartLibrary(),
  ]);
  const byDay = new Map(); // day since 1 Oct → values per chosen year
  bodies.forEach((b, i) => {
    const vi = col(b, stat);
    for (const [d, rows] of Object.entries(b.results)) {
      const k = calendarDay(d);
      if (!byDay.has(k))
        byDay.set(
          k,
          years.map(() => null),
        );
      byDay.get(k)[i] = convert(at(rows[0], vi), u);
    }
  });
  const days = [...byDay.keys()].sort((a, b) => a - b);
  const chart = yearsChart(
    els.chart,
    days,
    years.map((year, i) => ({ year, values: days.map((k) => byDay.get(k)[i]) })),
    u.unit,
    label,
  );
  const vi = col(doy, stat);
  const pi = col(doy, `pct_median_${stat}`);
  const ri = col(doy, `rank_${stat}`);
  const oi = col(doy, `rank_of_${stat}`);
  const doyRows = Object.keys(doy.results)
    .sort()
    .map((d) => {
      const r = doy.results[d][0];
      const rank = at(r, ri);
      return [
        `WY ${waterYearOf(d)}`,
        d,
        convert(at(r, vi), u),
        at(r, pi),
        rank === null ? '' : `${rank} of ${at(r, oi)}`,
      ];
    });
  els.doy.caption.textContent = `Every year on ${ctx.date.slice(5)}`;
  return {
    chart,
    doy: {
      columns: ['water year', 'date', `${label} (${u.unit})`, '% of median', 'rank (1 = most)'],
      rows: doyRows,
    },
    shown: {
      name: `${ctx.basin.id.replaceAll(':', '-')}_${file}_WY${years.join('-')}`,
      columns: ['day', ...years.map((y) => `WY ${y} (${u.unit})`)],
      rows: days.map((k) => [monthDay(k), ...byDay.get(k)]),
    },
  };
}
