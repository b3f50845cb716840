#!/usr/bin/env python3
"""The national-scale rival (issue 68): weights built once, each date one sparse product.

What the fastest every-basin engines do (exactextract-style weights kept in a server, a date as
`W @ x`): at start, every basin's AOI weight raster of ROOT's DATASET is read with GDAL into one
scipy.sparse CSR matrix (a row per basin and zone cell, a column per pixel of the basins' union
window); each query then reads the date's COG over that window once (the variable's nodata,
valid range and scale factor from the dataset's config) and answers every basin with two sparse
products (Σ weight × value and Σ weight over pixels with data).

  sparse.py loop ROOT DATASET
      One JSON line in, one out. {"setup": STEP} (null: whole basins) builds that band step's
      weights → {"setup_seconds", "basins", "nnz"} (the AOI rasters are read on the first); then
      each query {"date", "variable", "band_step_ft"?} → {"seconds", "basins": {triplet: {date:
      {variable: [mean per cell]}}}}, the seconds inside this process, weights excluded; or
      {"dates": [...], "variable", "keep": [triplet]} (whole basins, a water year) → {"seconds",
      "basins": {triplet: {date: mean}}}: every basin's mean of every date computed, the kept
      basins' returned.

Debian's python3-gdal, python3-numpy and python3-scipy.
"""
import json
import math
import os
import sys
import time

import numpy as np
import scipy.sparse as sp
from osgeo import gdal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from baseline import clean, elevation_bands, window_tag  # noqa: E402

gdal.UseExceptions()


class Weights:
    """Every basin's weights over the union window: per pixel (flat index in the window) and basin."""

    def __init__(self, root, dataset):
        self.dir = os.path.join(root, 'data', dataset)
        with open(os.path.join(self.dir, 'dataset.json')) as f:
            self.variables = json.load(f)['variables']
        aoi = os.path.join(self.dir, 'aoi')
        names = sorted(n[:-4] for n in os.listdir(aoi) if n.endswith('.tif'))
        parts = []
        for name in names:
            ds = gdal.Open(os.path.join(aoi, name + '.tif'))
            win = window_tag(ds, 'SNOWDB_AOI_WINDOW')
            w = ds.GetRasterBand(1).ReadAsArray().astype(np.float64)
            r, c = np.nonzero(w > 0)
            parts.append((win, r + win[1], c + win[0], w[r, c]))
        c0 = min(p[0][0] for p in parts)
        r0 = min(p[0][1] for p in parts)
        c1 = max(p[0][0] + p[0][2] for p in parts)
        r1 = max(p[0][1] + p[0][3] for p in parts)
        self.win = (c0, r0, c1 - c0, r1 - r0)
        self.triplets = [n.replace('_', ':') for n in names]
        # Per basin: flat pixel index in the union window and weight (the same for every band step).
        self.pixels = [((r - r0) * self.win[2] + (c - c0), w) for _, r, c, w in parts]
        self.by_step = {}

    def read(self, date, variable):
        """The date's values of `variable` over the union window (flat, its units) and which hold data."""
        spec = self.variables[variable]
        c, r, w, h = self.win
        path = os.path.join(self.dir, 'cogs', date.replace('-', ''), variable + '.tif')
        ds = gdal.Open(path)  # held while its band is read
        a = ds.GetRasterBand(1).ReadAsArray(c, r, w, h).ravel()
        ok = a != spec['nodata']
        lo, hi = spec.get('valid_range', (-math.inf, math.inf))
        ok &= (a >= lo) & (a <= hi)
        return np.where(ok, a, 0).astype(np.float64) * spec['scale_factor'], ok

    def matrix(self, step):
        """The CSR matrix of a band step (None: whole basins), built on first use."""
        if step in self.by_step:
            return self.by_step[step]
        n_cells = 1
        band = None
        if step:
            band, n_cells = elevation_bands(self.dir, self.win, step)
        rows, cols, vals = [], [], []
        for k, (pix, w) in enumerate(self.pixels):
            cell = np.zeros(len(pix), dtype=np.int64) if band is None else band[pix]
            keep = cell >= 0
            rows.append(k * n_cells + cell[keep])
            cols.append(pix[keep])
            vals.append(w[keep])
        n = self.win[2] * self.win[3]
        m = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(len(self.pixels) * n_cells, n))
        self.by_step[step] = (m, n_cells)
        return self.by_step[step]

    def answer(self, q):
        m, nc = self.matrix(q.get('band_step_ft'))
        t = time.perf_counter()
        x, ok = self.read(q['date'], q['variable'])
        sv = m @ x
        sw = m @ ok.astype(np.float64)
        with np.errstate(invalid='ignore', divide='ignore'):
            mean = np.where(sw > 0, sv / sw, np.nan).reshape(len(self.triplets), nc)
        seconds = time.perf_counter() - t
        basins = {k: {q['date']: {q['variable']: clean(mean[i].tolist())}} for i, k in enumerate(self.triplets)}
        return {'seconds': seconds, 'basins': basins}


    def water_year(self, q):
        """Every basin's whole-basin mean of each date (two products a date); the kept basins' out."""
        m, _ = self.matrix(None)
        at = {t: i for i, t in enumerate(self.triplets)}
        keep = [(t, at[t]) for t in q['keep']]
        out = {t: {} for t, _ in keep}
        t0 = time.perf_counter()
        for date in q['dates']:
            x, ok = self.read(date, q['variable'])
            sv = m @ x
            sw = m @ ok.astype(np.float64)
            with np.errstate(invalid='ignore', divide='ignore'):
                mean = np.where(sw > 0, sv / sw, np.nan)
            for t, i in keep:
                out[t][date] = None if math.isnan(mean[i]) else float(mean[i])
        return {'seconds': time.perf_counter() - t0, 'basins': out}


def loop(root, dataset):
    weights = None
    for line in sys.stdin:
        q = json.loads(line)
        if 'setup' in q:
            t = time.perf_counter()
            weights = weights or Weights(root, dataset)
            m, _ = weights.matrix(q['setup'])
            a = {'setup_seconds': time.perf_counter() - t, 'basins': len(weights.triplets), 'nnz': int(m.nnz)}
        elif 'dates' in q:
            a = weights.water_year(q)
        else:
            a = weights.answer(q)
        sys.stdout.write(json.dumps(a) + '\n')
        sys.stdout.flush()


if __name__ == '__main__':
    loop(sys.argv[2], sys.argv[3])
