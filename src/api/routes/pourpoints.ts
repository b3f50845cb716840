import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/database.js';
import { SnowdbError } from '../../errors.js';
import { BASIN_TABLE, basinTableRow, listPourpoints } from '../../pourpoints/catalog.js';
import { areaVsDeclared, type IndexEntry } from '../../pourpoints/index-file.js';
import { nestingAround } from '../../pourpoints/nesting.js';
import { indexedEntry, indexOf, simplifiedBasinJson, storedBasinJson } from '../../pourpoints/store.js';
import { csvRow } from '../../util/csv.js';
import { baseOf, jsonArray, seg, sendJson, spliceJson } from '../http.js';
import { negotiate } from '../negotiate.js';
import { POURPOINT_PARAM, problemResponses } from '../schemas.js';
import { sendCsv } from '../tables.js';
import { statsLinks } from './datasets.js';

const GEO = 'application/geo+json';

/** A bbox query: whether an outflow point lies in it, whether a basin's box meets it. */
interface BoxFilter {
  readonly point: (lon: number, lat: number) => boolean;
  readonly meets: (box: IndexEntry['basinBbox']) => boolean;
}

/** `minx,miny,maxx,maxy` (or 6 numbers with heights); minx > maxx wraps the antimeridian. */
function parseBbox(text: string): BoxFilter {
  const n = text.split(',').map((x) => Number(x.trim()));
  if ((n.length !== 4 && n.length !== 6) || !n.every(Number.isFinite)) {
    throw new SnowdbError('malformed-query-parameter', `bbox '${text}': expected minx,miny,maxx,maxy`, {
      parameter: 'bbox',
    });
  }
  const [x0, y0, x1, y1] = (n.length === 4 ? n : [n[0]!, n[1]!, n[3]!, n[4]!]) as [
    number,
    number,
    number,
    number,
  ];
  if (y0 > y1) {
    throw new SnowdbError('malformed-query-parameter', `bbox '${text}': miny is above maxy`, {
      parameter: 'bbox',
    });
  }
  // Longitude spans: one, or two across the antimeridian.
  const spans =
    x0 <= x1
      ? [[x0, x1]]
      : [
          [x0, 180],
          [-180, x1],
        ];
  return {
    point: (lon, lat) => lat >= y0 && lat <= y1 && spans.some(([a, b]) => lon >= a! && lon <= b!),
    meets: ([w, s, e, nn]) => s <= y1 && nn >= y0 && spans.some(([a, b]) => w <= b! && e >= a!),
  };
}

/** CSV when `f=csv`, or when no `f` is given and Accept prefers text/csv (anything else: GeoJSON). */
function wantsCsv(f: 'json' | 'csv' | undefined, accept: string | undefined): boolean {
  if (f !== undefined) return f === 'csv';
  try {
    return negotiate(undefined, accept) === 'csv';
  } catch {
    return false; // application/geo+json and the like: GeoJSON is this route's JSON
  }
}

/** Coverage per active dataset only: readers never see inactive ones. */
function activeCoverage(db: Database, e: IndexEntry): Record<string, string> {
  return Object.fromEntries(
    Object.entries(e.coverage).filter(([name]) => db.config.datasets[name]?.active === true),
  );
}

interface ListQuery {
  geometry: 'point' | 'basin';
  bbox?: string;
  bbox_on: 'point' | 'basin';
  f?: 'json' | 'csv';
  simplify?: number;
  limit?: number;
  offset: number;
}

/** `/pourpoints` (paged FeatureCollection) and `/pourpoints/{pourpoint}` (basin Feature). */
export async function pourpointRoutes(app: FastifyInstance, db: Database): Promise<void> {
  app.get<{ Querystring: ListQuery }>(
    '/pourpoints',
    {
      schema: {
        tags: ['pourpoints'],
        summary: 'Basin-bearing pourpoints, sorted by triplet, paged, optionally within a bbox',
        querystring: {
          type: 'object',
          properties: {
            geometry: { enum: ['point', 'basin'], default: 'point' },
            bbox: {
              type: 'string',
              description:
                'minx,miny,maxx,maxy (lon/lat) on the outflow point, or on the basin with bbox_on=basin',
            },
            bbox_on: {
              enum: ['point', 'basin'],
              default: 'point',
              description: "basin: the basins whose bounding box meets bbox (a map's view)",
            },
            f: {
              enum: ['json', 'csv'],
              description:
                'csv: the basin table (every match unless limit is given), streamed; also Accept: text/csv',
            },
            simplify: {
              type: 'number',
              minimum: 0,
              maximum: 1,
              description:
                'with geometry=basin: Douglas–Peucker tolerance in degrees (e.g. 0.005 ≈ 500 m), each ring on its own; kept vertices are original ones',
            },
            limit: {
              type: 'integer',
              minimum: 1,
              maximum: 1000,
              description: 'default 100 (25 with basins)',
            },
            offset: { type: 'integer', minimum: 0, maximum: 1_000_000_000, default: 0 },
          },
          additionalProperties: false,
        },
        response: {
          200: {
            description: 'pourpoints',
            content: {
              [GEO]: { schema: { $ref: 'FeatureCollection#' } },
              'text/csv': { schema: { type: 'string', description: BASIN_TABLE.join(',') } },
            },
          },
          ...problemResponses(400),
        },
      },
    },
    async (req, reply) => {
      const { geometry, bbox, bbox_on, offset, simplify } = req.query;
      if (simplify !== undefined && geometry !== 'basin')
        throw new SnowdbError('malformed-query-parameter', 'simplify goes with geometry=basin', {
          parameter: 'simplify',
        });
      const box = bbox === undefined ? null : parseBbox(bbox);
      const list = await listPourpoints(db);
      const all =
        box === null
          ? list
          : list.filter((e) =>
              bbox_on === 'basin' ? box.meets(e.basinBbox) : box.point(e.point[0], e.point[1]),
            );
      if (wantsCsv(req.query.f, req.headers.accept)) {
        const rows =
          req.query.limit === undefined ? all.slice(offset) : all.slice(offset, offset + req.query.limit);
        const lines = function* () {
          yield `${csvRow(BASIN_TABLE)}\r\n`;
          for (const e of rows) yield `${csvRow(basinTableRow(e, activeCoverage(db, e)))}\r\n`;
        };
        return sendCsv(reply, 'basins.csv', lines());
      }
      const limit = req.query.limit ?? (geometry === 'basin' ? 25 : 100);
      const page = all.slice(offset, offset + limit);
      const b = baseOf(req);
      // Each feature is written with its geometry's JSON spliced in: basin outlines come cached as
      // bytes (full or simplified), so a page of 600 basins costs no re-serialisation of coordinates.
      const features = await Promise.all(
        page.map(async (e) => {
          const geometryJson =
            geometry !== 'basin'
              ? Buffer.from(JSON.stringify({ type: 'Point', coordinates: e.point }))
              : simplify === undefined
                ? (await storedBasinJson(db, e.triplet)).geometry
                : await simplifiedBasinJson(db, e, simplify);
          const text = JSON.stringify({
            type: 'Feature',
            id: e.triplet,
            geometry: null,
            properties: {
              name: e.name,
              area_meters: e.areaMeters,
              pourpoint: e.point,
              ...(e.outlet ? {} : { outlet: false }),
              ...(e.declaredAreaM2 === null ? {} : { area_vs_declared_percent: areaVsDeclared(e) }),
              ...(e.outletOutsideM === null ? {} : { outlet_outside_m: e.outletOutsideM }),
              coverage: activeCoverage(db, e),
            },
            links: [{ href: `${b}/pourpoints/${seg(e.triplet)}`, rel: 'self', type: GEO }],
          });
          return spliceJson(text, 'geometry', geometryJson);
        }),
      );
      const at = (o: number) => {
        const p = new URLSearchParams({ geometry, limit: String(limit), offset: String(o) });
        if (bbox !== undefined) p.set('bbox', bbox);
        if (bbox_on !== 'point') p.set('bbox_on', bbox_on);
        if (simplify !== undefined) p.set('simplify', String(simplify));
        return `${b}/pourpoints?${p}`;
      };
      const last = Math.max(0, Math.floor((all.length - 1) / limit) * limit);
      const links = [
        { href: at(offset), rel: 'self', type: GEO },
        { href: `${b}/`, rel: 'root', type: 'application/json' },
        { href: at(0), rel: 'first', type: GEO },
        ...(offset > 0 ? [{ href: at(Math.max(0, offset - limit)), rel: 'prev', type: GEO }] : []),
        ...(offset + limit < all.length ? [{ href: at(offset + limit), rel: 'next', type: GEO }] : []),
        { href: at(last), rel: 'last', type: GEO },
      ];
      const head = JSON.stringify({
        type: 'FeatureCollection',
        features: null,
        numberMatched: all.length,
        numberReturned: features.length,
        links,
      });
      return sendJson(reply, spliceJson(head, 'features', jsonArray(features)), GEO, true);
    },
  );
  app.get<{ Params: { pourpoint: string } }>(
    '/pourpoints/:pourpoint',
    {
      schema: {
        tags: ['pourpoints'],
        summary: 'One pourpoint: its basin polygon, ids, area, coverage and bound stats links',
        params: { type: 'object', properties: { pourpoint: POURPOINT_PARAM }, required: ['pourpoint'] },
        response: {
          200: {
            description: 'the basin',
            content: { [GEO]: { schema: { type: 'object', additionalProperties: true } } },
          },
          ...problemResponses(404, 422),
        },
      },
    },
    async (req, reply) => {
      const e = indexedEntry(await indexOf(db), req.params.pourpoint);
      const { record: rec, geometry } = await storedBasinJson(db, e.triplet);
      const nesting = await nestingAround(db, e.triplet);
      const b = baseOf(req);
      const coverage = activeCoverage(db, e);
      // The cached polygon bytes go in whole where the placeholder stands (ids hold no quotes).
      const body = JSON.stringify({
        type: 'Feature',
        id: e.triplet,
        geometry: null,
        bbox: e.basinBbox,
        properties: {
          name: rec.name,
          area_meters: e.areaMeters,
          pourpoint: rec.point,
          outlet: rec.outlet,
          declared_area_m2: e.declaredAreaM2,
          area_vs_declared_percent: areaVsDeclared(e),
          parents: nesting.parents,
          children: nesting.children,
          coverage,
          awdb_id: rec.awdbId,
          usgs_id: rec.usgsId,
        },
        links: [
          { href: `${b}/pourpoints/${seg(e.triplet)}`, rel: 'self', type: GEO },
          { href: `${b}/`, rel: 'root', type: 'application/json' },
          { href: `${b}/pourpoints`, rel: 'collection', type: GEO },
          ...Object.entries(coverage)
            .filter(([, c]) => c !== 'none')
            .flatMap(([name]) => statsLinks(b, name, seg(e.triplet))),
        ],
      });
      return sendJson(reply, spliceJson(body, 'geometry', geometry), GEO, true);
    },
  );
}
