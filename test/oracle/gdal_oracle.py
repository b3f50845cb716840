#!/usr/bin/python3
"""Independent oracle for snowdb's raster tests, run with Debian's python3 + python3-gdal.

Commands (JSON on stdout):
  info FILE...                    per file: COG validation, size, geotransform, proj4, nodata,
                                  metadata, band description, overview count, sha256 of band 1
                                  as little-endian bytes
  window FILE COL ROW W H OUT     write band 1's window as raw little-endian bytes to OUT
  cells GRID_JSON GEOJSON         per-cell intersection areas of a basin with each cell polygon,
                                  computed by OGR in the grid CRS (geographic grids: in the
                                  equal-area cylindrical projection on the grid's ellipsoid)
  cell-sets JOBS_JSON             per job {geojson, grid (as for cells)}: the cells of the grid window
                                  whose intersection with OGR MakeValid(basin) has positive area, as
                                  [window index, intersection area, cell area] (the basin is cut to
                                  each row strip first, so large windows stay quick)
  makevalid-area GEOJSON ELLIPS   area of OGR MakeValid(basin) in +proj=cea on that ellipsoid, m²
  record GEOJSON                  a pourpoint record's basin: sha256 of OGR's little-endian WKB,
                                  area in a WGS84 Lambert azimuthal equal-area projection centred
                                  on the basin (m²), and the distance from the outflow point to the
                                  basin in an azimuthal equidistant projection centred on the
                                  point (exact geodesic distance from the centre; 0 inside)
  raster-sum FILE                 float64 sum of band 1 (nodata excluded), size, geotransform, metadata
  basin-area GEOJSON PROJ4 [MINX MINY MAXX MAXY]
                                  OGR area of the record's basin (MakeValid) projected to PROJ4,
                                  optionally clipped to a lon/lat box first (clipped in PROJ4)
  box-area MINX MINY MAXX MAXY PROJ4  OGR area of a lon/lat box projected to PROJ4 (edges densified)
  make-swann OUT ORDER SEED [BAD]  write a SWANN-format NetCDF-4 (SWE, DEPTH int16, fill -999, lat/lon
                                  cell centres on the UA grid; ORDER north|south = first lat row)
  make-spires OUT H V SEED [VARS] write a SPIRES NRT tile (time,y,x variables, x/y cell centres in
                                  sinusoid metres), every variable unless VARS (comma list) is given
  compare-window COG SRC COL ROW  GDAL reads SRC (any GDAL name, e.g. NETCDF:"f.nc":SWE) and the
                                  COG window of SRC's size at COL,ROW: equal cells, and a sample
  zone-elevation LAYER DEM        gdalwarp -r average of DEM onto LAYER's grid; compares with LAYER
                                  where both have data: count, max and mean absolute difference (m)
  zone-terrain LAYER_DIR DEM S    gdaldem slope + aspect on DEM (a projected DEM), then each DEM
                                  pixel split into S x S points assigned to LAYER_DIR's grid cells
                                  (OSR transforms): majority class, northness, eastness, entropy,
                                  compared with the layers in LAYER_DIR
  stations GEOJSON POINTS_JSON     per [lon, lat]: inside the record's basin (OGR Contains), and the
                                  distance to it in an azimuthal equidistant projection on the point
  lstsq X_JSON Y_JSON             numpy least squares of y on [1, x]: intercept, slope, r2, residual sd
  zone-forest LAYER NLCD S        direct count per LAYER cell of S x S points per NLCD pixel (OSR
                                  transforms): round(100 * forest / valid), compared with LAYER
  zonal AOI COG SCALE [LAYER STEP_FT]
                                  area-weighted reduction recomputed with numpy: weights = the AOI
                                  raster, values = COG (its nodata skipped) / SCALE, both placed by
                                  their geotransforms; with LAYER, cells are elevation bands of
                                  STEP_FT (m x 3.28084, floor), or with STEP_FT = buckets:LO:HI:N
                                  N equal buckets of LO..HI keyed 0..N-1; per cell: area_m2, valid weight,
                                  mean and sum(value * weight)
  basin-stats COG GEOJSON SCALE [LAYER STEP_FT]
                                  as zonal, but the weights are OGR intersection areas of the
                                  basin with each cell polygon of COG's grid (as in cells), over
                                  the basin's envelope: independent of snowdb's AOI raster;
                                  {basin: whole-basin cell, bands: per band (with LAYER)}
  vector FILE [LAYER]             OGR's reading of a vector file (GeoJSON, a zipped Shapefile via
                                  /vsizip/, a GeoPackage; LAYER or the first): per feature its
                                  attributes, its geometry reprojected to WGS 84 lon/lat (PROJ),
                                  the sha256 of that geometry's little-endian WKB, and its area in
                                  a WGS 84 Lambert azimuthal equal-area projection centred on it
  union GEOJSON...                OGR's union of bare GeoJSON geometries, as GeoJSON
  difference GEOJSON...           OGR's first geometry less the others, as GeoJSON
"""
import hashlib
import itertools
import json
import math
import sys

import numpy as np
from osgeo import gdal, ogr, osr
from osgeo_utils.samples import validate_cloud_optimized_geotiff as vcog

gdal.UseExceptions()
ogr.UseExceptions()


def info(paths):
    out = []
    for p in paths:
        try:
            warnings, errors, _ = vcog.validate(p, full_check=True)
        except vcog.ValidateCloudOptimizedGeoTIFFException as e:
            warnings, errors = [], [str(e)]
        ds = gdal.Open(p)
        band = ds.GetRasterBand(1)
        dtype, sha256 = hashed_values(band, ds.RasterXSize, ds.RasterYSize)
        srs = ds.GetSpatialRef()
        out.append({
            'path': p,
            'cog_errors': errors,
            'cog_warnings': warnings,
            'size': [ds.RasterXSize, ds.RasterYSize],
            'geotransform': list(ds.GetGeoTransform()),
            'proj4': srs.ExportToProj4().strip() if srs else None,
            'epsg': srs.GetAuthorityCode(None) if srs else None,
            'nodata': (lambda v: 'nan' if v is not None and math.isnan(v) else v)(band.GetNoDataValue()),
            'metadata': ds.GetMetadata(),
            'description': band.GetDescription(),
            'overviews': band.GetOverviewCount(),
            'block': band.GetBlockSize(),
            'dtype': str(dtype),
            'sha256': sha256,
        })
    print(json.dumps(out))


BANDS = {}  # (dtype, width, rows): a band buffer kept between calls (fresh 46 MB arrays cost page faults)


def hashed_values(band, width, height):
    """The band's numpy dtype and the SHA-256 of its values as little-endian bytes, row-major: read a
    band of block rows at a time into one reused buffer."""
    dtype = band.ReadAsArray(0, 0, 1, 1).dtype
    rows = band.GetBlockSize()[1]
    buf = BANDS.setdefault((dtype.str, width, rows), np.empty((rows, width), dtype))
    h = hashlib.sha256()
    for y in range(0, height, rows):
        part = buf[:min(rows, height - y)]
        band.ReadAsArray(0, y, width, part.shape[0], buf_obj=part)
        # Little-endian bytes, hashed in place (no copy when they already are, as on x86).
        h.update(np.ascontiguousarray(part, dtype=dtype.newbyteorder('<')).data)
    return dtype, h.hexdigest()


def window(path, col, row, w, h, out):
    ds = gdal.Open(path)
    arr = ds.GetRasterBand(1).ReadAsArray(int(col), int(row), int(w), int(h))
    with open(out, 'wb') as f:
        f.write(np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder('<')).tobytes())
    print(json.dumps({'dtype': str(arr.dtype), 'shape': list(arr.shape)}))


def cea(a, invf):
    s = osr.SpatialReference()
    s.ImportFromProj4(f'+proj=cea +lon_0=0 +lat_ts=0 +a={a} +rf={invf} +units=m +no_defs' if invf else
                      f'+proj=cea +lon_0=0 +lat_ts=0 +R={a} +units=m +no_defs')
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def lonlat():
    s = osr.SpatialReference()
    s.ImportFromEPSG(4326)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def basin_geometry(geojson_path):
    rec = json.load(open(geojson_path))
    geom = rec if rec.get('type') in ('Polygon', 'MultiPolygon') else \
        next(x for x in rec['geometries'] if x['type'] in ('Polygon', 'MultiPolygon'))
    return ogr.CreateGeometryFromJson(json.dumps(geom))


def area_frame(basin, geographic, a, invf, proj4):
    """Move basin (lon/lat) into the frame where areas are measured: the grid CRS, or on geographic
    grids the equal-area cylindrical projection on the grid's ellipsoid. Returns the transform of
    grid-CRS cell corners into that frame (None when it is the grid CRS)."""
    target = cea(a, invf) if geographic else proj(proj4)
    basin.Transform(osr.CoordinateTransformation(lonlat(), target))
    return osr.CoordinateTransformation(lonlat(), target) if geographic else None


def row_parts(ox, oy, cw, ch, win, basin, to_target):
    """Per row of window win (col, row, width, height): (y0, y1, the basin's part in the row's strip,
    None when it has no area). A cell lies in its strip: intersecting it with that part gives its
    intersection with the basin, against a far smaller polygon."""
    col, row, width, height = win
    for k in range(height):
        y1 = oy - (row + k) * ch
        y0 = y1 - ch
        strip = rect(ox + col * cw, y0, ox + (col + width) * cw, y1)
        if to_target is not None:
            strip.Transform(to_target)
        part = strip.Intersection(basin) if strip.Intersects(basin) else None
        yield y0, y1, None if part is None or part.IsEmpty() or part.GetArea() == 0 else part


def cell_in(ox, cw, col, y0, y1, part, to_target):
    """Cell col of a row as [intersection area with part, cell area], in the area frame."""
    x0 = ox + col * cw
    cell = rect(x0, y0, x0 + cw, y1)
    if to_target is not None:
        cell.Transform(to_target)
    area = cell.GetArea()
    if part is None or not cell.Intersects(part):
        return [0.0, area]
    # A cell inside the basin is its own intersection (GEOS's containment test is far cheaper than
    # building the overlay); any other cell is intersected.
    return [area if part.Contains(cell) else cell.Intersection(part).GetArea(), area]


def cell_intersections(ox, oy, cw, ch, win, basin, to_target):
    """[intersection area, cell area] per cell of window win (col, row, width, height), row-major."""
    col, _, width, _ = win
    return [cell_in(ox, cw, col + c, y0, y1, part, to_target)
            for y0, y1, part in row_parts(ox, oy, cw, ch, win, basin, to_target) for c in range(width)]


def cells(grid_path, geojson_path):
    g = json.load(open(grid_path))
    basin = basin_geometry(geojson_path)
    to_target = area_frame(basin, g['geographic'], g['a'], g['invf'], g['proj4'])
    w = g['window']
    print(json.dumps(cell_intersections(g['originX'], g['originY'], g['cellWidth'], g['cellHeight'],
                                        (w['col'], w['row'], w['width'], w['height']), basin, to_target)))


def rect(x0, y0, x1, y1):
    ring = ogr.Geometry(ogr.wkbLinearRing)
    for x, y in ((x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)):
        ring.AddPoint_2D(x, y)
    poly = ogr.Geometry(ogr.wkbPolygon)
    poly.AddGeometry(ring)
    return poly


def positive_cells(g, geojson_path):
    basin = basin_geometry(geojson_path)
    to_target = area_frame(basin, g['geographic'], g['a'], g['invf'], g['proj4'])
    w = g['window']
    win = (w['col'], w['row'], w['width'], w['height'])
    ox, oy, cw, ch = g['originX'], g['originY'], g['cellWidth'], g['cellHeight']
    out = []
    for k, (y0, y1, part) in enumerate(row_parts(ox, oy, cw, ch, win, basin.MakeValid(), to_target)):
        if part is None:
            continue
        for c in range(w['width']):
            area, cell_area = cell_in(ox, cw, w['col'] + c, y0, y1, part, to_target)
            if area > 0:
                out.append([k * w['width'] + c, area, cell_area])
    return out


def cell_sets(jobs_path):
    print(json.dumps([positive_cells(j['grid'], j['geojson']) for j in json.load(open(jobs_path))]))


def makevalid_area(geojson_path, a, invf):
    rec = json.load(open(geojson_path))
    geom = next(x for x in rec['geometries'] if x['type'] in ('Polygon', 'MultiPolygon'))
    basin = ogr.CreateGeometryFromJson(json.dumps(geom))
    valid_before = basin.IsValid()
    basin.Transform(osr.CoordinateTransformation(lonlat(), cea(float(a), float(invf))))
    print(json.dumps({'valid': valid_before, 'area': basin.MakeValid().GetArea()}))


def proj(p4):
    s = osr.SpatialReference()
    s.ImportFromProj4(p4)
    s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    return s


def record(geojson_path):
    rec = json.load(open(geojson_path))
    geom = next(x for x in rec['geometries'] if x['type'] in ('Polygon', 'MultiPolygon'))
    lon, lat = next(x for x in rec['geometries'] if x['type'] == 'Point')['coordinates'][:2]
    basin = ogr.CreateGeometryFromJson(json.dumps(geom))
    wkb = bytes(basin.ExportToWkb(ogr.wkbNDR))
    minx, maxx, miny, maxy = basin.GetEnvelope()
    laea = basin.Clone()
    laea.Transform(osr.CoordinateTransformation(lonlat(), proj(
        f'+proj=laea +lat_0={(miny + maxy) / 2} +lon_0={(minx + maxx) / 2} +ellps=WGS84 +units=m +no_defs')))
    aeqd = proj(f'+proj=aeqd +lat_0={lat} +lon_0={lon} +ellps=WGS84 +units=m +no_defs')
    to_aeqd = osr.CoordinateTransformation(lonlat(), aeqd)
    near = basin.Clone()
    near.Transform(to_aeqd)
    pt = ogr.Geometry(ogr.wkbPoint)
    pt.AddPoint_2D(lon, lat)
    pt.Transform(to_aeqd)
    print(json.dumps({'wkb_sha256': hashlib.sha256(wkb).hexdigest(), 'area': laea.GetArea(),
                      'point_distance': pt.Distance(near)}))


def stations(geojson_path, points_json):
    """Per [lon, lat] point: whether OGR finds it inside the record's basin, and its distance to the
    basin (densified to 0.0005 degrees) in an azimuthal equidistant projection centred on the point."""
    rec = json.load(open(geojson_path))
    geoms = rec['geometries'] if rec.get('type') == 'GeometryCollection' else [rec['geometry']]
    geom = next(x for x in geoms if x['type'] in ('Polygon', 'MultiPolygon'))
    basin = ogr.CreateGeometryFromJson(json.dumps(geom))
    basin.Segmentize(0.0005)
    out = []
    for lon, lat in json.loads(points_json):
        pt = ogr.Geometry(ogr.wkbPoint)
        pt.AddPoint_2D(lon, lat)
        inside = basin.Contains(pt)
        to_aeqd = osr.CoordinateTransformation(lonlat(), proj(f'+proj=aeqd +lat_0={lat} +lon_0={lon} +ellps=WGS84 +units=m +no_defs'))
        b = basin.Clone()
        b.Transform(to_aeqd)
        pt.Transform(to_aeqd)
        out.append({'inside': inside, 'distance_m': 0.0 if inside else pt.Distance(b.GetBoundary())})
    print(json.dumps(out))


def lstsq(x_json, y_json):
    """numpy's least squares of y on [1, x]: intercept, slope, r2 and the residual standard deviation (n - 2)."""
    import numpy as np
    x = np.array(json.loads(x_json), dtype=float)
    y = np.array(json.loads(y_json), dtype=float)
    a = np.vstack([np.ones_like(x), x]).T
    (b0, b1), res, _, _ = np.linalg.lstsq(a, y, rcond=None)
    r = y - (b0 + b1 * x)
    print(json.dumps({'intercept': b0, 'slope': b1, 'r2': 1 - (r @ r) / ((y - y.mean()) @ (y - y.mean())),
                      'residual_sd': float(np.sqrt((r @ r) / (len(x) - 2)))}))


def raster_sum(path):
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    arr = band.ReadAsArray()
    nd = band.GetNoDataValue()
    # Summed in float64 where the value is not nodata, without a float64 copy of the grid.
    total = float(np.sum(arr, dtype=np.float64, where=arr != nd)) if nd is not None else float(arr.sum(dtype=np.float64))
    print(json.dumps({'sum': total, 'size': [ds.RasterXSize, ds.RasterYSize],
                      'geotransform': list(ds.GetGeoTransform()), 'metadata': ds.GetMetadata()}))


def positive_pixels(path):
    """A raster's pixels above 0: offsets (row-major) and values, with its size and metadata."""
    ds = gdal.Open(path)
    arr = ds.GetRasterBand(1).ReadAsArray().astype(np.float64).ravel()
    at = np.nonzero(arr > 0)[0]
    print(json.dumps({'size': [ds.RasterXSize, ds.RasterYSize], 'metadata': ds.GetMetadata(),
                      'offsets': at.tolist(), 'values': arr[at].tolist()}))


def box_polygon(x0, y0, x1, y1, n=200):
    ring = ogr.Geometry(ogr.wkbLinearRing)
    pts = ([(x0 + (x1 - x0) * i / n, y0) for i in range(n)] + [(x1, y0 + (y1 - y0) * i / n) for i in range(n)] +
           [(x1 - (x1 - x0) * i / n, y1) for i in range(n)] + [(x0, y1 - (y1 - y0) * i / n) for i in range(n)])
    for x, y in pts + [pts[0]]:
        ring.AddPoint_2D(x, y)
    poly = ogr.Geometry(ogr.wkbPolygon)
    poly.AddGeometry(ring)
    return poly


def box_area(x0, y0, x1, y1, p4):
    poly = box_polygon(float(x0), float(y0), float(x1), float(y1))
    poly.Transform(osr.CoordinateTransformation(lonlat(), proj(p4)))
    print(json.dumps({'area': poly.GetArea()}))


def basin_area(geojson_path, p4, *box):
    rec = json.load(open(geojson_path))
    geom = next(x for x in rec['geometries'] if x['type'] in ('Polygon', 'MultiPolygon'))
    basin = ogr.CreateGeometryFromJson(json.dumps(geom)).MakeValid()
    target = proj(p4)
    to_target = osr.CoordinateTransformation(lonlat(), target)
    basin.Transform(to_target)
    if box:
        clip = box_polygon(*map(float, box))
        clip.Transform(to_target)
        basin = basin.Intersection(clip)
    print(json.dumps({'area': basin.GetArea()}))


def make_swann(out, order, seed, bad_depth=None):
    H, W, cell, x0, y0 = 3105, 7025, 0.008333325394357, -125.0208, 49.9375
    rng = np.random.default_rng(int(seed))
    ds = gdal.GetDriverByName('netCDF').CreateMultiDimensional(out, [], ['FORMAT=NC4'])
    rg = ds.GetRootGroup()
    dlat = rg.CreateDimension('lat', None, None, H)
    dlon = rg.CreateDimension('lon', None, None, W)
    lats = y0 - (np.arange(H) + 0.5) * cell
    if order == 'south':
        lats = lats[::-1]
    rg.CreateMDArray('lat', [dlat], gdal.ExtendedDataType.Create(gdal.GDT_Float64)).Write(lats)
    rg.CreateMDArray('lon', [dlon], gdal.ExtendedDataType.Create(gdal.GDT_Float64)).Write(x0 + (np.arange(W) + 0.5) * cell)
    # int32 index arithmetic (the largest value, 3 * 3105 + 7025, fits): half the bytes of int64.
    rows = np.arange(H, dtype=np.int32)[:, None]
    cols = np.arange(W, dtype=np.int32)[None, :]
    mask = ((rows // 50 + cols // 70) % 5 == 0) | (cols < 300)
    # Snow (a pattern plus noise) in rows 900-1499, a fifth of the grid; 0 on the rest of the land.
    snow = slice(900, 1500)
    base = ((rows[snow] * 3 + cols) % 400).astype(np.int16)
    for name, scale in (('SWE', 1), ('DEPTH', 4)):
        a = np.zeros((H, W), dtype=np.int16)
        a[snow] = (base * scale + rng.integers(0, 3, size=(600, W))).astype(np.int16)
        a[mask] = -999
        if bad_depth is not None and name == 'DEPTH':
            a[1000, 4000] = int(bad_depth)  # one out-of-range cell, as a stale buffer would hold
        if order == 'south':
            a = a[::-1]
        v = rg.CreateMDArray(name, [dlat, dlon], gdal.ExtendedDataType.Create(gdal.GDT_Int16), ['COMPRESS=DEFLATE', 'ZLEVEL=1'])
        v.SetNoDataValueDouble(-999)
        v.Write(np.ascontiguousarray(a))
    del ds
    print(json.dumps({'out': out}))


SPIRES_VARS = [('snow_fraction', gdal.GDT_Byte, 255, 100), ('viewable_snow_fraction', gdal.GDT_Byte, 255, 100),
               ('albedo_dirty_flat', gdal.GDT_Byte, 255, 100), ('albedo_dirty_terrain_corrected', gdal.GDT_Byte, 255, 100),
               ('deltavis', gdal.GDT_Byte, 255, 75), ('grain_size', gdal.GDT_UInt16, 65535, 1190),
               ('dust_concentration', gdal.GDT_UInt16, 65535, 950), ('snow_cover_duration', gdal.GDT_UInt16, 65535, 366),
               ('radiative_forcing', gdal.GDT_UInt16, 65535, 500)]


SPIRES_LOW = {'grain_size': 40}


def make_spires(out, h, v, seed, names=None):
    n, px, tile = 2400, 463.3127165693847, 1111950.5196666666
    x0 = -20015109.354 + int(h) * tile
    y1 = 10007554.677 - int(v) * tile
    rng = np.random.default_rng(int(seed))
    ds = gdal.GetDriverByName('netCDF').CreateMultiDimensional(out, [], ['FORMAT=NC4'])
    rg = ds.GetRootGroup()
    dt = rg.CreateDimension('time', None, None, 1)
    dy = rg.CreateDimension('y', None, None, n)
    dx = rg.CreateDimension('x', None, None, n)
    rg.CreateMDArray('time', [dt], gdal.ExtendedDataType.Create(gdal.GDT_Float64)).Write(np.array([9000.0]))
    for axis, dim, values in (('x', dx, x0 + (np.arange(n) + 0.5) * px), ('y', dy, y1 - (np.arange(n) + 0.5) * px)):
        arr = rg.CreateMDArray(axis, [dim], gdal.ExtendedDataType.Create(gdal.GDT_Float64))
        arr.Write(values)
        for key, val in (('standard_name', f'projection_{axis}_coordinate'), ('units', 'm'), ('axis', axis.upper())):
            arr.CreateAttribute(key, [], gdal.ExtendedDataType.CreateString()).WriteString(val)
    # int32 index arithmetic (values stay below 2**31): half the bytes of int64.
    rows = np.arange(n, dtype=np.int32)[:, None]
    cols = np.arange(n, dtype=np.int32)[None, :]
    holes = (rows // 37 + cols // 53) % 7 == 0  # the fill-value pattern, one for every variable
    wanted = names.split(',') if names else [x[0] for x in SPIRES_VARS]
    for k, (name, gdt, fill, top) in enumerate(SPIRES_VARS):
        if name not in wanted:
            continue
        low = SPIRES_LOW.get(name, 0)
        a = (low + (rows + cols * 2 + (k * 11 + int(seed))) % (top - low + 1)).astype(np.uint8 if gdt == gdal.GDT_Byte else np.uint16)
        a[holes] = fill
        var = rg.CreateMDArray(name, [dt, dy, dx], gdal.ExtendedDataType.Create(gdt), ['COMPRESS=DEFLATE', 'ZLEVEL=1'])
        var.SetNoDataValueDouble(fill)
        # valid_range as the producer's CDL declares it, in the variable's own type.
        vr = var.CreateAttribute('valid_range', [2], gdal.ExtendedDataType.Create(gdt))
        vr.Write([low, top])
        var.Write(np.ascontiguousarray(a[None, :, :]))
    del ds
    print(json.dumps({'out': out}))


def compare_window(cog, src, col, row):
    s = gdal.Open(src)
    arr = s.GetRasterBand(1).ReadAsArray()
    cds = gdal.Open(cog)  # keep the dataset alive while its band is read
    c = cds.GetRasterBand(1).ReadAsArray(int(col), int(row), s.RasterXSize, s.RasterYSize)
    print(json.dumps({'shape': list(arr.shape), 'mismatches': int((arr != c).sum()),
                      'sample': [int(arr[7, 11]), int(c[7, 11])]}))


def layer_grid(path):
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    return ds, band.ReadAsArray(), band.GetNoDataValue()


def zone_elevation(layer, dem):
    ds, ours, nd = layer_grid(layer)
    gt = ds.GetGeoTransform()
    w, h = ds.RasterXSize, ds.RasterYSize
    warped = gdal.Warp('', dem, format='MEM', dstSRS=ds.GetProjection(), resampleAlg='average',
                       outputBounds=(gt[0], gt[3] + h * gt[5], gt[0] + w * gt[1], gt[3]),
                       width=w, height=h, dstNodata=-9999, outputType=gdal.GDT_Float64)
    ref = warped.GetRasterBand(1).ReadAsArray()
    both = (ours != nd) & (ref != -9999)
    d = np.abs(ours[both].astype('float64') - ref[both])
    # Interior cells: all four corners inside the DEM's extent.
    src = gdal.Open(dem)
    sg = src.GetGeoTransform()
    a = osr.SpatialReference(wkt=ds.GetProjection())
    b = osr.SpatialReference(wkt=src.GetProjection())
    for sr in (a, b):
        sr.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    ct = osr.CoordinateTransformation(a, b)
    cc, rr = np.meshgrid(np.arange(w + 1), np.arange(h + 1))
    t = np.array(ct.TransformPoints(np.stack([(gt[0] + cc * gt[1]).ravel(), (gt[3] + rr * gt[5]).ravel()], -1)))
    x0, x1 = sg[0], sg[0] + src.RasterXSize * sg[1]
    y1, y0 = sg[3], sg[3] + src.RasterYSize * sg[5]
    ins = ((t[:, 0] > x0) & (t[:, 0] < x1) & (t[:, 1] > y0) & (t[:, 1] < y1)).reshape(h + 1, w + 1)
    interior = both & ins[:-1, :-1] & ins[:-1, 1:] & ins[1:, :-1] & ins[1:, 1:]
    di = np.abs(ours[interior].astype('float64') - ref[interior])
    print(json.dumps({'n': int(both.sum()), 'interior': int(interior.sum()),
                      'interior_max_abs': float(di.max()) if di.size else None, 'ours_only': int(((ours != nd) & (ref == -9999)).sum()),
                      'gdal_only': int(((ours == nd) & (ref != -9999)).sum()),
                      'max_abs': float(d.max()), 'mean_abs': float(d.mean()),
                      'relief': float(ref[both].max() - ref[both].min())}))


def sample_cells(src_ds, target_ds, s):
    """Cell index (row * width + col) in target_ds of S x S points per src_ds pixel, shape
    (rows, cols, S*S), -1 outside. Pixel corners are transformed exactly by OSR; points inside a
    pixel are bilinear between its corners (a 30-90 m pixel does not curve measurably)."""
    a = osr.SpatialReference(wkt=src_ds.GetProjection())
    b = osr.SpatialReference(wkt=target_ds.GetProjection())
    for sr in (a, b):
        sr.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    ct = osr.CoordinateTransformation(a, b)
    gt = src_ds.GetGeoTransform()
    W, H = src_ds.RasterXSize, src_ds.RasterYSize
    cc, rr = np.meshgrid(np.arange(W + 1), np.arange(H + 1))
    pts = np.stack([(gt[0] + cc * gt[1]).ravel(), (gt[3] + rr * gt[5]).ravel()], -1)
    t = ct.TransformPoints(pts)  # a list of (x, y, z) tuples: flattened without a tuple each
    t = np.fromiter(itertools.chain.from_iterable(t), np.float64, count=3 * len(t)).reshape(-1, 3)
    tg = target_ds.GetGeoTransform()
    tc = ((t[:, 0] - tg[0]) / tg[1]).reshape(H + 1, W + 1)
    tr = ((t[:, 1] - tg[3]) / tg[5]).reshape(H + 1, W + 1)
    w, h = target_ds.RasterXSize, target_ds.RasterYSize
    out = [None] * (s * s)  # point (u, v) at v * s + u
    offs = (np.arange(s) + 0.5) / s
    for iu, u in enumerate(offs):
        # The top and bottom edges at u, once for every v (the same arithmetic as per point).
        edges = [(g[:-1, :-1] * (1 - u) + g[:-1, 1:] * u, g[1:, :-1] * (1 - u) + g[1:, 1:] * u) for g in (tc, tr)]
        for iv, v in enumerate(offs):
            c, r = (np.floor(top * (1 - v) + bot * v).astype('int64') for top, bot in edges)
            ok = (c >= 0) & (c < w) & (r >= 0) & (r < h)
            out[iv * s + iu] = np.where(ok, r * w + c, -1)
    return np.stack(out, -1)


def zone_terrain(layer_dir, dem, s):
    s = int(s)
    slope = gdal.DEMProcessing('', dem, 'slope', format='MEM', alg='Horn').ReadAsArray()
    aspect = gdal.DEMProcessing('', dem, 'aspect', format='MEM', alg='Horn').ReadAsArray()
    src = gdal.Open(dem)
    valid = (slope != -9999) & (aspect != -9999) | ((slope != -9999) & (slope < 2))
    flat = valid & (slope < 2)
    cls = np.full(slope.shape, 255, 'int64')
    deg = aspect
    cls[valid & ~flat & ((deg >= 315) | (deg < 45))] = 0
    cls[valid & ~flat & (deg >= 45) & (deg < 135)] = 1
    cls[valid & ~flat & (deg >= 135) & (deg < 225)] = 2
    cls[valid & ~flat & (deg >= 225) & (deg < 315)] = 3
    cls[flat] = 4
    ds, major, _ = layer_grid(f'{layer_dir}/aspect_majority.tif')
    n = ds.RasterXSize * ds.RasterYSize
    cell = sample_cells(src, ds, s)
    z = src.GetRasterBand(1).ReadAsArray().astype('float64')
    znd = src.GetRasterBand(1).GetNoDataValue()
    zw = np.zeros(n)
    zs = np.zeros(n)
    wt = 1.0 / (s * s)
    counts = np.zeros((n, 5))
    sc = np.zeros(n)
    ss = np.zeros(n)
    sw = np.zeros(n)
    for k in range(s * s):
        ck = cell[:, :, k]
        m = (z != znd) & (ck >= 0)
        zw += np.bincount(ck[m], minlength=n) * wt
        zs += np.bincount(ck[m], weights=z[m] * wt, minlength=n)
        for c in range(5):
            m = (cls == c) & (ck >= 0)
            counts[:, c] += np.bincount(ck[m], minlength=n) * wt
        m = (cls < 4) & (ck >= 0)
        rad = np.radians(aspect[m])
        sc += np.bincount(ck[m], weights=np.cos(rad) * wt, minlength=n)
        ss += np.bincount(ck[m], weights=np.sin(rad) * wt, minlength=n)
        sw += np.bincount(ck[m], weights=np.full(m.sum(), wt), minlength=n)
    total = counts.sum(1)
    has = total > 0
    srt = np.sort(counts, 1)
    margin = np.where(has, (srt[:, -1] - srt[:, -2]) / np.where(has, total, 1), 0)
    ref_major = np.argmax(counts, 1)
    ours = major.ravel()
    clear = has & (margin > 0.15)
    p = counts / np.where(has, total, 1)[:, None]
    with np.errstate(divide='ignore', invalid='ignore'):
        ent = -np.nansum(np.where(p > 0, p * np.log(p), 0), 1) / math.log(5)
    ours_ent = gdal.Open(f'{layer_dir}/aspect_entropy.tif').ReadAsArray().ravel()
    north = gdal.Open(f'{layer_dir}/northness.tif').ReadAsArray().ravel()
    east = gdal.Open(f'{layer_dir}/eastness.tif').ReadAsArray().ravel()
    sl = sw > 0
    elev = gdal.Open(f'{layer_dir}/elevation.tif').ReadAsArray().ravel()
    ze = zw > 0
    print(json.dumps({
        'elevation_cells': int(ze.sum()), 'elevation_ours_cells': int((elev != -9999).sum()),
        'elevation_max_abs': float(np.abs(elev[ze] - zs[ze] / zw[ze]).max()),
        'cells': int(has.sum()), 'ours_cells': int((ours != 255).sum()),
        'clear': int(clear.sum()), 'clear_mismatch': int((ours[clear] != ref_major[clear]).sum()),
        'all_mismatch': int((ours[has] != ref_major[has]).sum()),
        'entropy_max_abs': float(np.abs(ours_ent[has] - ent[has]).max()),
        'northness_max_abs': float(np.abs(north[sl] - sc[sl] / sw[sl]).max()),
        'eastness_max_abs': float(np.abs(east[sl] - ss[sl] / sw[sl]).max()),
        'northness_mean_abs': float(np.abs(north[sl] - sc[sl] / sw[sl]).mean()),
    }))


def zone_forest(layer, nlcd, s):
    s = int(s)
    ds, ours, nd = layer_grid(layer)
    src = gdal.Open(nlcd)
    cls = src.GetRasterBand(1).ReadAsArray().astype('int64')
    src_nd = src.GetRasterBand(1).GetNoDataValue()
    cells = sample_cells(src, ds, s)
    n = ds.RasterXSize * ds.RasterYSize
    nv = np.zeros(n)
    nf = np.zeros(n)
    classed = (cls != 0) & (cls != src_nd)
    forested = np.isin(cls, [41, 42, 43])
    for k in range(s * s):
        cell = cells[:, :, k]
        valid = classed & (cell >= 0)
        forest = valid & forested
        nv += np.bincount(cell[valid], minlength=n) / (s * s)
        nf += np.bincount(cell[forest], minlength=n) / (s * s)
    ref = np.where(nv > 0, np.floor(100.0 * nf / np.where(nv > 0, nv, 1) + 0.5), 255).astype('int64')
    o = ours.ravel().astype('int64')
    print(json.dumps({'cells': int((nv > 0).sum()), 'mismatch': int((o != ref).sum()),
                      'max_diff': int(np.abs(np.where(o == 255, 0, o) - np.where(ref == 255, 0, ref)).max()),
                      'forested_cells': int(((ref >= 50) & (ref != 255)).sum())}))


def aligned(path, ref_ds):
    """Band 1 of path over ref_ds's extent (same lattice), nodata where path has none."""
    ds = gdal.Open(path)
    band = ds.GetRasterBand(1)
    nd = band.GetNoDataValue()
    gt, rg = ds.GetGeoTransform(), ref_ds.GetGeoTransform()
    c0 = int(round((rg[0] - gt[0]) / gt[1]))
    r0 = int(round((rg[3] - gt[3]) / gt[5]))
    w, h = ref_ds.RasterXSize, ref_ds.RasterYSize
    out = np.full((h, w), nd if nd is not None else np.nan, 'float64')
    cs, rs = max(c0, 0), max(r0, 0)
    ce, re_ = min(c0 + w, ds.RasterXSize), min(r0 + h, ds.RasterYSize)
    if ce > cs and re_ > rs:
        out[rs - r0:re_ - r0, cs - c0:ce - c0] = band.ReadAsArray(cs, rs, ce - cs, re_ - rs)
    return out, nd


def reduce_cells(ref, w, cog, scale, layer, step):
    """Per elevation band of STEP ft, or per bucket (STEP = buckets:LO:HI:N, top edge inclusive; key
    = bucket index), or one cell '0': area, valid area, mean and sum of the COG's values / scale
    weighted by w, an array on ref's lattice; with a layer, the basin's pixels it leaves in no zone
    as the cell 'unclassified'."""
    v, nd = aligned(cog, ref)
    inside = w > 0
    if layer is None:
        keys = np.zeros(w.shape, 'int64')
    else:
        z, znd = aligned(layer, ref)
        inside &= z != znd
        if str(step).startswith('buckets:'):
            lo, hi, n = (float(x) for x in step.split(':')[1:])
            k = np.floor((np.where(inside, z, lo) - lo) / ((hi - lo) / n))
            keys = np.minimum(k, n - 1).astype('int64')
        else:
            keys = np.floor(np.where(inside, z, 0) * 3.28084 / float(step)).astype('int64') * int(step)
    def cell(m):
        ok = m & (v != nd)
        sw = w[ok].sum()
        sv = (v[ok] * w[ok]).sum() / float(scale)
        return {'area_m2': float(w[m].sum()), 'valid_m2': float(sw),
                'mean': float(sv / sw) if sw > 0 else None, 'sum': float(sv)}

    out = {str(int(k)): cell(inside & (keys == k)) for k in np.unique(keys[inside])}
    lost = (w > 0) & ~inside
    if layer is not None and lost.any():
        out['unclassified'] = cell(lost)  # basin pixels the layer leaves in no zone
    return out


def zonal(aoi, cog, scale, layer=None, step=None):
    a = gdal.Open(aoi)
    w = a.GetRasterBand(1).ReadAsArray().astype('float64')
    print(json.dumps(reduce_cells(a, w, cog, scale, layer, step)))


def basin_stats(cog, geojson_path, scale, layer=None, step=None):
    ds = gdal.Open(cog)
    gt = ds.GetGeoTransform()
    srs = ds.GetSpatialRef()
    basin = basin_geometry(geojson_path)
    if srs.IsGeographic():
        minx, maxx, miny, maxy = basin.GetEnvelope()
        to_target = area_frame(basin, True, srs.GetSemiMajor(), srs.GetInvFlattening(), None)
    else:
        to_target = area_frame(basin, False, None, None, srs.ExportToProj4())
        minx, maxx, miny, maxy = basin.GetEnvelope()
    c0 = max(int(math.floor((minx - gt[0]) / gt[1])), 0)
    c1 = min(int(math.ceil((maxx - gt[0]) / gt[1])), ds.RasterXSize)
    r0 = max(int(math.floor((gt[3] - maxy) / -gt[5])), 0)
    r1 = min(int(math.ceil((gt[3] - miny) / -gt[5])), ds.RasterYSize)
    win = (c0, r0, c1 - c0, r1 - r0)
    inter = cell_intersections(gt[0], gt[3], gt[1], -gt[5], win, basin, to_target)
    w = np.array([i for i, _ in inter], 'float64').reshape(win[3], win[2])
    ref = gdal.GetDriverByName('MEM').Create('', win[2], win[3], 1, gdal.GDT_Float64)
    ref.SetGeoTransform((gt[0] + c0 * gt[1], gt[1], 0, gt[3] + r0 * gt[5], 0, gt[5]))
    out = {'basin': reduce_cells(ref, w, cog, scale, None, None)['0']}
    if layer is not None:
        out['bands'] = reduce_cells(ref, w, cog, scale, layer, step)
    print(json.dumps(out))


def simplify_check(original_path, simplified_path, tolerance):
    """Douglas–Peucker checks of a simplified basin (GeoJSON geometry files) against its original:
    whether every kept vertex is an original one, the farthest original vertex from the simplified
    boundary, vertex counts (ours and GEOS's Simplify), and both areas (planar, degrees²)."""
    tol = float(tolerance)
    orig = ogr.CreateGeometryFromJson(open(original_path).read())
    ours = ogr.CreateGeometryFromJson(open(simplified_path).read())

    def vertices(g):
        out = []
        for i in range(g.GetGeometryCount()):
            out += vertices(g.GetGeometryRef(i))
        out += [g.GetPoint_2D(k) for k in range(g.GetPointCount())]
        return out
    original_vertices = vertices(orig)
    originals = set(original_vertices)
    kept = vertices(ours)
    boundary = ours.GetBoundary()
    far = 0.0
    for x, y in original_vertices:
        p = ogr.Geometry(ogr.wkbPoint)
        p.AddPoint_2D(x, y)
        far = max(far, p.Distance(boundary))
    geos = orig.Simplify(tol)
    print(json.dumps({'kept_are_original': all(v in originals for v in kept), 'farthest_dropped': far,
                      'vertices': len(kept), 'original_vertices': len(original_vertices),
                      'geos_vertices': len(vertices(geos)), 'area': ours.GetArea(), 'original_area': orig.GetArea()}))


def vector(path, layer=None):
    ds = ogr.Open(f'/vsizip/{path}' if path.endswith('.zip') else path)
    lyr = ds.GetLayerByName(layer) if layer else ds.GetLayer(0)
    src = lyr.GetSpatialRef()
    to_ll = None
    if src is not None:
        src.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
        to_ll = osr.CoordinateTransformation(src, lonlat())
    out = []
    for f in lyr:
        g = f.GetGeometryRef().Clone()
        if to_ll is not None:
            g.Transform(to_ll)
        g.FlattenTo2D()
        minx, maxx, miny, maxy = g.GetEnvelope()
        laea = g.Clone()
        laea.Transform(osr.CoordinateTransformation(lonlat(), proj(
            f'+proj=laea +lat_0={(miny + maxy) / 2} +lon_0={(minx + maxx) / 2} +ellps=WGS84 +units=m +no_defs')))
        out.append({'attributes': {k: f.GetField(k) for k in f.keys()},
                    'geometry': json.loads(g.ExportToJson(['COORDINATE_PRECISION=17'])),
                    'wkb_sha256': hashlib.sha256(bytes(g.ExportToWkb(ogr.wkbNDR))).hexdigest(),
                    'area': laea.GetArea()})
    print(json.dumps(out))


def difference(*paths):
    geoms = [ogr.CreateGeometryFromJson(json.dumps(json.load(open(p)))) for p in paths]
    d = geoms[0]
    for g in geoms[1:]:
        d = d.Difference(g)
    print(d.ExportToJson(['COORDINATE_PRECISION=17']))


def union(*paths):
    geoms = [ogr.CreateGeometryFromJson(json.dumps(json.load(open(p)))) for p in paths]
    u = geoms[0]
    for g in geoms[1:]:
        u = u.Union(g)
    print(u.ExportToJson(['COORDINATE_PRECISION=17']))


def run(argv):
    """Run one command (argv: its name and arguments), printing its JSON answer."""
    cmd, args = argv[0], argv[1:]
    {'info': lambda: info(args), 'window': lambda: window(*args), 'cells': lambda: cells(*args), 'cell-sets': lambda: cell_sets(*args),
     'makevalid-area': lambda: makevalid_area(*args), 'record': lambda: record(*args),
     'raster-sum': lambda: raster_sum(*args), 'positive-pixels': lambda: positive_pixels(*args), 'basin-area': lambda: basin_area(*args),
     'box-area': lambda: box_area(*args), 'make-swann': lambda: make_swann(*args),
     'make-spires': lambda: make_spires(*args), 'compare-window': lambda: compare_window(*args),
     'zone-elevation': lambda: zone_elevation(*args), 'zone-terrain': lambda: zone_terrain(*args),
     'zone-forest': lambda: zone_forest(*args), 'zonal': lambda: zonal(*args),
     'basin-stats': lambda: basin_stats(*args), 'simplify-check': lambda: simplify_check(*args),
     'vector': lambda: vector(*args), 'union': lambda: union(*args),
     'difference': lambda: difference(*args), 'stations': lambda: stations(*args),
     'lstsq': lambda: lstsq(*args)}[cmd]()


if __name__ == '__main__':
    run(sys.argv[1:])
