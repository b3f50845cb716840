#!/usr/bin/env python3
"""The rival: a straightforward per-date GDAL/numpy loop, as the reference tool computes stats.

Per query: read the basin's AOI weight raster and (optionally) the elevation zone layer once with
GDAL, then per date and variable gdal.Open the date's COG, ReadAsArray the basin window, and reduce
with numpy (Σ weight and Σ value × weight per 1,000-ft band over pixels with data).

Modes (Debian's python3-gdal):
  baseline.py loop            one JSON query per stdin line → one JSON answer per stdout line,
                              with the seconds the query took inside this process
  baseline.py serve PORT      HTTP server: GET /stats?root=&triplet=&date=&variable= → the same
                              answer for one date (ThreadingHTTPServer, HTTP/1.1 keep-alive)
"""
import json
import math
import os
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import numpy as np
from osgeo import gdal

gdal.UseExceptions()

M_TO_FT = 3.28084
ELEV_DOMAIN_FT = (-100 * M_TO_FT, 4500 * M_TO_FT)


def window_tag(ds, tag):
    col, row, width, height = (int(x) for x in ds.GetMetadataItem(tag).split())
    return col, row, width, height


def read_onto(path, tag, want, fill):
    """The raster at `path` (placed by its window tag) read onto window `want`, `fill` outside."""
    ds = gdal.Open(path)
    col, row, w, h = window_tag(ds, tag)
    wc, wr, ww, wh = want
    out = np.full((wh, ww), fill, dtype=np.float64)
    c0, r0 = max(col, wc), max(row, wr)
    c1, r1 = min(col + w, wc + ww), min(row + h, wr + wh)
    if c1 > c0 and r1 > r0:
        part = ds.GetRasterBand(1).ReadAsArray(c0 - col, r0 - row, c1 - c0, r1 - r0)
        out[r0 - wr:r1 - wr, c0 - wc:c1 - wc] = part
    return out


def elevation_bands(ds_dir, win, step):
    """Each pixel's `step`-ft elevation band ordinal over window `win` (−1 = none), and the band count."""
    layer = read_onto(os.path.join(ds_dir, 'zones', 'terrain', 'elevation.tif'),
                      'SNOWDB_ZONE_WINDOW', win, math.nan).ravel()
    lo, hi = ELEV_DOMAIN_FT
    first = math.floor(lo / step)
    u = layer * M_TO_FT
    with np.errstate(invalid='ignore'):
        ok = (u >= lo) & (u <= hi)
    band = np.where(ok, np.floor(np.where(ok, u, 0) / step) - first, -1).astype(np.int64)
    return band, math.floor(hi / step) - first + 1


def prepare(q):
    """AOI weights and each pixel's band ordinal (−1 = no band), flattened over the AOI window."""
    ds_dir = os.path.join(q['root'], 'data', q['dataset'])
    aoi_path = os.path.join(ds_dir, 'aoi', q['triplet'].replace(':', '_') + '.tif')
    ds = gdal.Open(aoi_path)
    win = window_tag(ds, 'SNOWDB_AOI_WINDOW')
    weights = ds.GetRasterBand(1).ReadAsArray().astype(np.float64).ravel()
    n_cells = 1
    cell = np.where(weights > 0, 0, -1)
    step = q.get('band_step_ft')
    if step:
        band, n_cells = elevation_bands(ds_dir, win, step)
        cell = np.where((cell >= 0) & (band >= 0), band, -1)
    keep = cell >= 0
    return {'dir': ds_dir, 'win': win, 'w': weights[keep], 'cell': cell[keep], 'keep': keep,
            'n_cells': n_cells}


def reduce_date(p, date, variable, scale, nodata):
    col, row, w, h = p['win']
    path = os.path.join(p['dir'], 'cogs', date.replace('-', ''), variable + '.tif')
    ds = gdal.Open(path)  # held while its band is read (GDAL frees bands with their dataset)
    arr = ds.GetRasterBand(1).ReadAsArray(col, row, w, h).ravel()[p['keep']]
    ok = arr != nodata
    sw = np.bincount(p['cell'][ok], weights=p['w'][ok], minlength=p['n_cells'])
    sv = np.bincount(p['cell'][ok], weights=(arr[ok] * p['w'][ok]), minlength=p['n_cells'])
    with np.errstate(invalid='ignore', divide='ignore'):
        mean = np.where(sw > 0, sv / sw / scale, np.nan)
    return mean


def answer(q):
    """Per date, per variable: the mean per cell (NaN = no data), as lists."""
    t = time.perf_counter()
    p = prepare(q)
    out = {}
    for date in q['dates']:
        out[date] = {v: reduce_date(p, date, v, 1.0, -9999).tolist() for v in q['variables']}
    if q.get('normals'):
        return {'seconds': time.perf_counter() - t, 'results': {}, 'normals': normals(out, q['variables'])}
    return {'seconds': time.perf_counter() - t, 'results': out}


def normals(out, variables):
    """Per calendar day (MM-DD) and variable, per cell: median, mean, p10, p90, min, max, years."""
    by_day = {}
    for date, per_var in out.items():
        by_day.setdefault(date[5:], []).append(per_var)
    res = {}
    for day, rows in by_day.items():
        res[day] = {}
        for v in variables:
            a = np.array([r[v] for r in rows], dtype=np.float64)  # years × cells
            cells = []
            for k in range(a.shape[1]):
                x = a[:, k][~np.isnan(a[:, k])]
                if x.size == 0:
                    cells.append([None] * 6 + [0])
                    continue
                med, p10, p90 = np.percentile(x, [50, 10, 90])
                cells.append([float(med), float(x.mean()), float(p10), float(p90), float(x.min()), float(x.max()), int(x.size)])
            res[day][v] = cells
    return res


def clean(x):
    return [None if isinstance(v, float) and math.isnan(v) else v for v in x]


def loop():
    for line in sys.stdin:
        q = json.loads(line)
        a = answer(q)
        for d in a['results'].values():
            for v in d:
                d[v] = clean(d[v])
        sys.stdout.write(json.dumps(a) + '\n')
        sys.stdout.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def do_GET(self):
        u = urlparse(self.path)
        qs = {k: v[0] for k, v in parse_qs(u.query).items()}
        q = {'root': qs['root'], 'dataset': qs.get('dataset', 'snodas'), 'triplet': qs['triplet'],
             'dates': [qs['date']], 'variables': [qs['variable']]}
        body = json.dumps({d: {v: clean(x) for v, x in r.items()}
                           for d, r in answer(q)['results'].items()}).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == '__main__':
    if sys.argv[1] == 'loop':
        loop()
    else:
        server = ThreadingHTTPServer(('127.0.0.1', int(sys.argv[2])), Handler)
        print('listening', flush=True)
        server.serve_forever()
