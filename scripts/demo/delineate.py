"""
Delineate the demo's North Creek basin from the bundled Zion SRTM DEM (CC0) and write it as a
pourpoint record (demo/basins/NORTHCK_UT_DEMO.geojson). Run once by hand with Debian's GDAL
Python; the record is committed, and `npm run demo` never runs this.

    /usr/bin/python3 scripts/demo/delineate.py test/fixtures/zion/srtm.tif demo/basins/NORTHCK_UT_DEMO.geojson

Method: priority-flood depression filling (Barnes et al. 2014, with a 1e-6 m rise so flats
drain), D8 directions toward the cell each one was flooded from, the set of cells upstream of the
outlet, and GDAL's Polygonize of that set. The outlet is North Creek's last DEM cell above its
mouth on the Virgin River at Virgin, UT; no cell of its basin lies within 4 cells of the DEM's
edge, so the DEM holds the whole basin.
"""
import heapq
import json
import sys

import numpy as np
from osgeo import gdal, ogr, osr

OUTLET_LON, OUTLET_LAT = -113.1750, 37.2025  # North Creek above its mouth (DEM cell centre)

src, out = sys.argv[1], sys.argv[2]
ds = gdal.Open(src)
z = ds.GetRasterBand(1).ReadAsArray().astype(np.float64)
gt = ds.GetGeoTransform()
H, W = z.shape
seen = np.zeros((H, W), bool)
down = np.full(H * W, -1, np.int64)  # flat index of the cell each cell drains to; -1 = off the DEM
pq = []
for r in range(H):
    for c in range(W):
        if r in (0, H - 1) or c in (0, W - 1):
            heapq.heappush(pq, (z[r, c], r, c))
            seen[r, c] = True
order = []
while pq:
    e, r, c = heapq.heappop(pq)
    order.append(r * W + c)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            rr, cc = r + dr, c + dc
            if (dr or dc) and 0 <= rr < H and 0 <= cc < W and not seen[rr, cc]:
                seen[rr, cc] = True
                down[rr * W + cc] = r * W + c
                heapq.heappush(pq, (max(z[rr, cc], e + 1e-6), rr, cc))

outlet = int((OUTLET_LAT - gt[3]) / gt[5]) * W + int((OUTLET_LON - gt[0]) / gt[1])
inside = np.zeros(H * W, bool)
inside[outlet] = True
for i in order:  # downstream cells are flooded first: a cell's receiver is decided before it
    if down[i] >= 0 and inside[down[i]]:
        inside[i] = True
mask = inside.reshape(H, W)
rows, cols = np.nonzero(mask)
margin = min(rows.min(), cols.min(), H - 1 - rows.max(), W - 1 - cols.max())
assert margin >= 4, f'the basin reaches within {margin} cells of the DEM edge'

mem = gdal.GetDriverByName('MEM').Create('', W, H, 1, gdal.GDT_Byte)
mem.SetGeoTransform(gt)
mem.SetProjection(ds.GetProjection())
mem.GetRasterBand(1).WriteArray(mask.astype(np.uint8))
vec = ogr.GetDriverByName('Memory').CreateDataSource('')
srs = osr.SpatialReference(wkt=ds.GetProjection())
layer = vec.CreateLayer('basin', srs, ogr.wkbPolygon)
layer.CreateField(ogr.FieldDefn('v', ogr.OFTInteger))
gdal.Polygonize(mem.GetRasterBand(1), mem.GetRasterBand(1), layer, 0)
polys = [json.loads(f.GetGeometryRef().ExportToJson()) for f in layer]
assert len(polys) == 1, f'{len(polys)} polygons'
rings = [[[round(x, 7), round(y, 7)] for x, y in ring] for ring in polys[0]['coordinates']]
lat = np.radians(gt[3] + (rows + 0.5) * gt[5])
km2 = float(np.sum(np.cos(lat))) * (abs(gt[1]) * 111.19492664) * (abs(gt[5]) * 111.19492664)
r0, c0 = divmod(outlet, W)
record = {
    'type': 'GeometryCollection',
    'id': 'NORTHCK:UT:DEMO',
    'geometries': [
        {'type': 'Point', 'coordinates': [round(gt[0] + (c0 + 0.5) * gt[1], 7), round(gt[3] + (r0 + 0.5) * gt[5], 7)]},
        {'type': 'MultiPolygon', 'coordinates': [rings]},
    ],
    'properties': {
        'name': 'North Ck nr Virgin (delineated from the demo DEM)',
        'source': 'demo',
        'basinarea': round(km2 / 2.589988110336, 2),  # mi², as BAGIS records give it
        'elevation': str(round(float(z[r0, c0]) / 0.3048)),  # ft at the outlet
        'forecastpoint': False,
    },
}
with open(out, 'w') as f:
    json.dump(record, f, indent=2)
    f.write('\n')
print(f'{out}: {len(rows)} DEM cells, {km2:.1f} km², {sum(len(r) for r in rings)} vertices, margin {margin} cells')
