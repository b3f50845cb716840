import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { computeAllBasins, MAX_ALL_BASINS_DATES } from '../../stats/all-basins.js';
import { allBasinsCsvLines, csvLines } from '../../stats/csv.js';
import { type DateQuery, dayOfYear, parseDateRange } from '../../stats/dates.js';
import { executeStats } from '../../stats/engine.js';
import { openStatsPlan, type StatsQuery } from '../../stats/plan.js';
import { statsStateKey } from '../../stats/state.js';
import { baseOf, seg, selfOf, sendJson } from '../http.js';
import { type Format, negotiate } from '../negotiate.js';
import { DATASET_PARAM, POURPOINT_PARAM, problemResponses, STATS_COMMON } from '../schemas.js';

interface Common {
  zone?: string[];
  variable?: string[];
  include_empty_zones?: boolean;
  valid_fraction?: boolean;
  f?: Format;
}
type Params = { dataset: string; pourpoint: string };

/** CSV download name: `<triplet, ':' → '-'>_<dates>[_zonal_<n>].csv` (snowtool's names). */
export function csvFileName(triplet: string, q: DateQuery, zones: number): string {
  const dates =
    q.type === 'DateRange'
      ? `${q.start_date ?? 'open'}-${q.end_date ?? 'open'}`
      : `${q.month}-${q.day}_${q.start_year}-${q.end_year}`;
  return `${triplet.replaceAll(':', '-')}_${dates}${zones > 0 ? `_zonal_${zones}` : ''}.csv`;
}

/** Whether an If-None-Match header names this entity tag (or is `*`). */
function notModified(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '');
    return v === '*' || v === etag;
  });
}

/** Answer one stats request: negotiate, ETag/304, compute, then JSON envelope or streamed CSV. */
async function answer(
  db: Database,
  req: FastifyRequest<{ Params: Params; Querystring: Common }>,
  reply: FastifyReply,
  dates: DateQuery,
): Promise<FastifyReply> {
  const format = negotiate(req.query.f, req.headers.accept);
  const { dataset, pourpoint } = req.params;
  const zones = req.query.zone ?? [];
  const q: StatsQuery = {
    dataset,
    pourpoint,
    dates,
    zones,
    variables: req.query.variable ?? [],
    includeEmptyZones: req.query.include_empty_zones,
    validFraction: req.query.valid_fraction,
  };
  const plan = await openStatsPlan(db, q);
  const etag = `"${statsStateKey(plan)}.${format}"`;
  reply.header('ETag', etag).header('Cache-Control', 'no-cache').header('Vary', 'Accept, Accept-Encoding');
  if (notModified(req.headers['if-none-match'], etag)) return reply.code(304).send();
  const body = await executeStats(plan);
  if (format === 'csv') {
    return reply
      .type('text/csv; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${csvFileName(pourpoint, dates, zones.length)}"`)
      .send(Readable.from(csvLines(body)));
  }
  const b = baseOf(req);
  const self = selfOf(req);
  const csv = new URL(self);
  csv.searchParams.set('f', 'csv');
  return sendJson(reply, {
    ...body,
    pourpoint,
    dataset,
    query: dates,
    links: [
      { href: self, rel: 'self', type: 'application/json' },
      { href: `${b}/`, rel: 'root', type: 'application/json' },
      { href: `${b}/pourpoints/${seg(pourpoint)}`, rel: 'up', type: 'application/geo+json' },
      { href: csv.href, rel: 'alternate', type: 'text/csv', title: 'csv' },
    ],
  });
}

const params = {
  type: 'object',
  properties: { dataset: DATASET_PARAM, pourpoint: POURPOINT_PARAM },
  required: ['dataset', 'pourpoint'],
} as const;

const response = {
  200: {
    description: 'the compact stats envelope (JSON) or the CSV table (a download)',
    content: {
      'application/json': { schema: { $ref: 'CompactStatsResponse#' } },
      'text/csv': { schema: { type: 'string' } },
    },
  },
  304: { description: 'not modified (If-None-Match matched the ETag)' },
  ...problemResponses(400, 404, 406, 409, 422),
};

/** The stats routes: a basin over a date range, a basin on a day of year, every basin at once. */
export async function statsRoutes(app: FastifyInstance, db: Database): Promise<void> {
  app.get<{ Params: { dataset: string }; Querystring: Common & { date: string } }>(
    '/datasets/:dataset/stats',
    {
      schema: {
        tags: ['stats'],
        summary: `Statistics of every covered basin for one date or a short range (at most ${MAX_ALL_BASINS_DATES} dates)`,
        params: { type: 'object', properties: { dataset: DATASET_PARAM }, required: ['dataset'] },
        querystring: {
          type: 'object',
          properties: {
            date: {
              type: 'string',
              description: 'one ISO date, or start/end (inclusive)',
              examples: ['2024-04-01', '2024-03-25/2024-04-01'],
            },
            ...STATS_COMMON,
          },
          required: ['date'],
          additionalProperties: false,
        },
        response: {
          200: {
            description:
              'every covered basin, sorted by triplet (JSON), or one CSV table with a pourpoint column',
            content: {
              'application/json': { schema: { $ref: 'AllBasinsStatsResponse#' } },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          ...problemResponses(400, 404, 406, 422),
        },
      },
    },
    async (req, reply) => {
      const format = negotiate(req.query.f, req.headers.accept);
      const { dataset } = req.params;
      const dates = parseDateRange(req.query.date, 'date');
      const body = await computeAllBasins(db, {
        dataset,
        dates,
        zones: req.query.zone ?? [],
        variables: req.query.variable ?? [],
        includeEmptyZones: req.query.include_empty_zones,
        validFraction: req.query.valid_fraction,
      });
      if (format === 'csv') {
        const name = `${dataset}_${dates.type === 'DateRange' ? `${dates.start_date}-${dates.end_date}` : 'doy'}_all.csv`;
        return reply
          .type('text/csv; charset=utf-8')
          .header('Content-Disposition', `attachment; filename="${name}"`)
          .send(Readable.from(allBasinsCsvLines(body)));
      }
      const self = selfOf(req);
      const csv = new URL(self);
      csv.searchParams.set('f', 'csv');
      return sendJson(reply, {
        ...body,
        dataset,
        query: dates,
        links: [
          { href: self, rel: 'self', type: 'application/json' },
          { href: `${baseOf(req)}/`, rel: 'root', type: 'application/json' },
          { href: csv.href, rel: 'alternate', type: 'text/csv', title: 'csv' },
        ],
      });
    },
  );
  app.get<{ Params: Params; Querystring: Common & { datetime: string } }>(
    '/datasets/:dataset/stats/:pourpoint/date-range',
    {
      schema: {
        tags: ['stats'],
        summary: 'Stratified statistics of a basin over a date range',
        params,
        querystring: {
          type: 'object',
          properties: {
            datetime: {
              type: 'string',
              description:
                "start/end, ISO dates, inclusive; '..' or empty leaves an end open; one date alone",
              examples: ['2024-01-01/2024-06-30', '2024-04-01', '2024-01-01/..'],
            },
            ...STATS_COMMON,
          },
          required: ['datetime'],
          additionalProperties: false,
        },
        response,
      },
    },
    (req, reply) => answer(db, req, reply, parseDateRange(req.query.datetime)),
  );
  app.get<{
    Params: Params;
    Querystring: Common & { month: number; day: number; start_year: number; end_year: number };
  }>(
    '/datasets/:dataset/stats/:pourpoint/doy',
    {
      schema: {
        tags: ['stats'],
        summary: 'Stratified statistics of a basin on one calendar day in every year of a span',
        params,
        querystring: {
          type: 'object',
          properties: {
            month: { type: 'integer', minimum: 1, maximum: 12 },
            day: { type: 'integer', minimum: 1, maximum: 31 },
            start_year: { type: 'integer', minimum: 1000, maximum: 9999 },
            end_year: { type: 'integer', minimum: 1000, maximum: 9999 },
            ...STATS_COMMON,
          },
          required: ['month', 'day', 'start_year', 'end_year'],
          additionalProperties: false,
        },
        response,
      },
    },
    (req, reply) => {
      const { month, day, start_year, end_year } = req.query;
      return answer(db, req, reply, dayOfYear(month, day, start_year, end_year));
    },
  );
}
