"""History oracle: basin statistics per date recomputed with GDAL + numpy (gdal_oracle.reduce_cells:
weights = the AOI raster, values = each date's COG), then day-of-year normals, % of median and
ranks, and water-year summaries, computed here with numpy alone.

  history_oracle.py AOI DATES_DIR LAYER|- STEP_FT|- Y1..Y2 DAYS ANOMALY_DATES SUMMARY_YEARS THRESHOLD
    AOI            the basin's AOI raster (weights, m2)
    DATES_DIR      the dataset's cogs/ folder (YYYYMMDD/swe.tif, SWE in mm, volume 0.001 m/mm)
    LAYER STEP_FT  an elevation layer and band step (cells keyed by band floor, 'unclassified'), or -
    Y1..Y2         reference water years (1 Oct of Y-1 .. 30 Sep of Y)
    DAYS           MM-DD,... days whose normals to compute
    ANOMALY_DATES  ISO,... dates to compare with the normals (median, pct of median, rank); ranked
                   each within the reference years plus the other listed dates' non-reference years
                   of the same day; % of median only where the median is at least 0.1 in (2.54 mm,
                   or that depth over the cell's area for a volume); no rank where no other year
                   holds a value or where the value and another year's are both below that floor
    SUMMARY_YEARS  Y,... water years to summarize
    THRESHOLD      melt-out threshold, mm
Prints {normals: {day: {cell: {mean|total: {median, mean, p10, p90, min, max, years}}}},
anomalies: {date: {cell: {mean|total: {value, median, pct, rank, rank_of}}}},
summaries: {year: {cell: {peak, peak_date, melt_out, apr1, peak_total, apr1_total, dates}}}}.
"""
import datetime as dt
import json
import os
import sys

import numpy as np
from osgeo import gdal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdal_oracle import reduce_cells  # noqa: E402

gdal.UseExceptions()


def main(aoi, dates_dir, layer, step, years, days, anomaly_dates, summary_years, threshold):
    a = gdal.Open(aoi)
    w = a.GetRasterBand(1).ReadAsArray().astype('float64')
    layer = None if layer == '-' else layer
    y1, y2 = (int(x) for x in years.split('..'))
    held = set(os.listdir(dates_dir))
    cache = {}
    areas = {}  # cell -> area, m2
    floor_mm = 2.54

    def cells(iso):
        """{cell: (mean mm or None, total m3)} of one date, or None when the date is absent."""
        key = iso.replace('-', '')
        if key not in held:
            return None
        if key not in cache:
            r = reduce_cells(a, w, os.path.join(dates_dir, key, 'swe.tif'), 1, layer, None if layer is None else step)
            cache[key] = {k: (c['mean'], c['sum'] * 0.001 if c['valid_m2'] > 0 else None) for k, c in r.items()}
            areas.update({k: c['area_m2'] for k, c in r.items()})
        return cache[key]

    def date_of(wy, day):
        m, d = int(day[:2]), int(day[3:])
        y = wy - 1 if m >= 10 else wy
        try:
            return dt.date(y, m, d).isoformat()
        except ValueError:  # 02-29 of a common year
            return None

    def reference(day, skip=None):
        """{cell: {0: [(wy, mean)], 1: [(wy, total)]}} over the reference years."""
        out = {}
        for wy in range(y1, y2 + 1):
            iso = date_of(wy, day)
            got = cells(iso) if iso else None
            if got is None or wy == skip:
                continue
            for k, vals in got.items():
                for i, v in enumerate(vals):
                    if v is not None:
                        out.setdefault(k, {0: [], 1: []})[i].append(v)
        return out

    names = ('mean', 'total')
    normals = {}
    for day in days.split(','):
        normals[day] = {
            k: {names[i]: {'median': float(np.median(xs)), 'mean': float(np.mean(xs)),
                           'p10': float(np.percentile(xs, 10)), 'p90': float(np.percentile(xs, 90)),
                           'min': float(np.min(xs)), 'max': float(np.max(xs)), 'years': len(xs)}
                for i, xs in per.items() if xs}
            for k, per in reference(day).items()}

    anomalies = {}
    listed = list(filter(None, anomaly_dates.split(',')))
    for iso in listed:
        d = dt.date.fromisoformat(iso)
        wy = d.year + (1 if d.month >= 10 else 0)
        day = iso[5:]
        now = cells(iso)
        full, others = reference(day), reference(day, skip=wy)
        # The other listed dates of this day whose water years are not reference years.
        extra = [cells(x) for x in listed if x != iso and x[5:] == day and not (y1 <= int(x[:4]) + (1 if int(x[5:7]) >= 10 else 0) <= y2)]
        anomalies[iso] = {}
        for k, vals in now.items():
            anomalies[iso][k] = {}
            for i, v in enumerate(vals):
                xs = full.get(k, {}).get(i, [])
                med = float(np.median(xs)) if xs else None
                rest = others.get(k, {}).get(i, []) + [e[k][i] for e in extra if e[k][i] is not None]
                floor = floor_mm if i == 0 else floor_mm * 0.001 * areas[k]
                low_tie = v is not None and v < floor and any(x < floor for x in rest)
                anomalies[iso][k][names[i]] = {
                    'value': v, 'median': med,
                    'pct': 100 * v / med if v is not None and med and med >= floor else None,
                    'rank': 1 + sum(1 for x in rest if x > v) if v is not None and rest and not low_tie else None,
                    'rank_of': len(rest) + 1 if v is not None else None}

    summaries = {}
    for wy in (int(x) for x in filter(None, summary_years.split(','))):
        series = []
        d = dt.date(wy - 1, 10, 1)
        while d <= dt.date(wy, 9, 30):
            got = cells(d.isoformat())
            if got is not None:
                series.append((d.isoformat(), got))
            d += dt.timedelta(days=1)
        out = {}
        for k in series[0][1]:
            vals = [(iso, got[k][0], got[k][1]) for iso, got in series]
            valid = [(iso, v) for iso, v, _ in vals if v is not None]
            top = max(v for _, v in valid)
            peak = next(iso for iso, v in valid if v == top)
            melt = next((iso for iso, v in valid if iso > peak and v < float(threshold)), None)
            peak_total = next(t for iso, _, t in vals if iso == peak)
            if top < float(threshold):  # never any snow: no peak date, no melt-out
                peak, melt = None, None
            apr1 = next((x for x in vals if x[0] == f'{wy}-04-01'), None)
            out[k] = {'peak': top, 'peak_date': peak, 'melt_out': melt,
                      'apr1': apr1[1] if apr1 else None,
                      'peak_total': peak_total,
                      'apr1_total': apr1[2] if apr1 else None, 'dates': len(series)}
        summaries[str(wy)] = out

    print(json.dumps({'normals': normals, 'anomalies': anomalies, 'summaries': summaries}))


if __name__ == '__main__':
    main(*sys.argv[1:])
