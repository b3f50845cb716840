import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.js';
import { SnowdbError } from '../../errors.js';
import {
  allBasinsStateKey,
  executeAllBasins,
  MAX_ALL_BASINS_DATES,
  planAllBasins,
} from '../../stats/all-basins.js';
import { executeWithNormals, type NormalsOption, type StatsWithNormals } from '../../stats/anomalies.js';
import { allBasinsCsvLines, csvLines } from '../../stats/csv.js';
import { type DateQuery, dayOfYear, parseDateRange, parseYearSpan } from '../../stats/dates.js';
import { answerNotes } from '../../stats/normals.js';
import { openStatsPlan, type StatsQuery } from '../../stats/plan.js';
import { statsStateKey } from '../../stats/state.js';
import { admit, queryCaps, sendJson } from '../http.js';
import { negotiate } from '../negotiate.js';
import { DATASET_PARAM, NORMALS_OPTIONS, STATS_COMMON } from '../schemas.js';
import {
  type BasinParams,
  basinParams,
  type Common,
  cellOptions,
  conditional,
  conditionalResponses,
  sendCsv,
  statsLinks,
  upLink,
} from '../tables.js';

/** The dates part of a CSV download name: `<start|open>-<end|open>` or `<month>-<day>_<Y1>-<Y2>`. */
const datesPart = (q: DateQuery): string =>
  q.type === 'DateRange'
    ? `${q.start_date ?? 'open'}-${q.end_date ?? 'open'}`
    : `${q.month}-${q.day}_${q.start_year}-${q.end_year}`;

/** CSV download name: `<triplet, ':' → '-'>_<dates>[_zonal_<n>].csv` (snowtool's names). */
export function csvFileName(triplet: string, q: DateQuery, zones: number): string {
  return `${triplet.replaceAll(':', '-')}_${datesPart(q)}${zones > 0 ? `_zonal_${zones}` : ''}.csv`;
}

/** `normals=true` (with `normals_years`) → the normals option. */
function normalsOption(q: Common): NormalsOption | undefined {
  if (q.normals_years !== undefined && q.normals !== true)
    throw new SnowdbError('malformed-query-parameter', 'normals_years goes with normals=true', {
      parameter: 'normals_years',
    });
  if (q.normals !== true) return undefined;
  return {
    years: q.normals_years === undefined ? undefined : parseYearSpan(q.normals_years, 'normals_years'),
  };
}

/** Answer one stats request: negotiate, ETag/304, compute, then JSON envelope or streamed CSV. */
async function answer(
  db: Database,
  req: FastifyRequest<{ Params: BasinParams; Querystring: Common }>,
  reply: FastifyReply,
  dates: DateQuery,
): Promise<FastifyReply> {
  const format = negotiate(req.query.f, req.headers.accept);
  const { dataset, pourpoint } = req.params;
  const cells = cellOptions(req.query);
  const normals = normalsOption(req.query);
  const q: StatsQuery = { dataset, pourpoint, dates, ...cells, ...queryCaps(req), normals };
  const plan = await openStatsPlan(db, q);
  if (conditional(req, reply, statsStateKey(plan), format)) return reply.code(304).send();
  const body = await admit(req, reply, (exec) => executeWithNormals(db, plan, exec));
  if (format === 'csv')
    return sendCsv(reply, csvFileName(pourpoint, dates, cells.zones.length), csvLines(body));
  const notes = answerNotes(dataset, plan.notes, [(body as Partial<StatsWithNormals>).reference]);
  return sendJson(reply, {
    ...body,
    pourpoint,
    dataset,
    query: dates,
    ...(notes.length > 0 && { notes }),
    links: statsLinks(req, [upLink(req, pourpoint)]),
  });
}

const response = conditionalResponses(
  'CompactStatsResponse',
  'the compact stats envelope (JSON) or the CSV table (a download)',
);

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
            ...NORMALS_OPTIONS,
          },
          required: ['date'],
          additionalProperties: false,
        },
        response: conditionalResponses(
          'AllBasinsStatsResponse',
          'every covered basin, sorted by triplet (JSON), or one CSV table with a pourpoint column',
        ),
      },
    },
    async (req, reply) => {
      const format = negotiate(req.query.f, req.headers.accept);
      const { dataset } = req.params;
      const dates = parseDateRange(req.query.date, 'date');
      const normals = normalsOption(req.query);
      const q = { dataset, dates, ...cellOptions(req.query), ...queryCaps(req), normals };
      const plan = await planAllBasins(db, q);
      if (conditional(req, reply, allBasinsStateKey(plan), format)) return reply.code(304).send();
      const body = await admit(req, reply, (exec) => executeAllBasins(db, plan, exec));
      if (format === 'csv')
        return sendCsv(reply, `${dataset}_${datesPart(dates)}_all.csv`, allBasinsCsvLines(body));
      const notes = answerNotes(
        dataset,
        plan.notes,
        body.basins.map((b) => b.reference),
      );
      return sendJson(reply, {
        ...body,
        dataset,
        query: dates,
        ...(notes.length > 0 && { notes }),
        links: statsLinks(req),
      });
    },
  );
  app.get<{ Params: BasinParams; Querystring: Common & { datetime: string } }>(
    '/datasets/:dataset/stats/:pourpoint/date-range',
    {
      schema: {
        tags: ['stats'],
        summary: 'Stratified statistics of a basin over a date range',
        params: basinParams,
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
            ...NORMALS_OPTIONS,
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
    Params: BasinParams;
    Querystring: Common & { month: number; day: number; start_year: number; end_year: number };
  }>(
    '/datasets/:dataset/stats/:pourpoint/doy',
    {
      schema: {
        tags: ['stats'],
        summary: 'Stratified statistics of a basin on one calendar day in every year of a span',
        params: basinParams,
        querystring: {
          type: 'object',
          properties: {
            month: { type: 'integer', minimum: 1, maximum: 12 },
            day: { type: 'integer', minimum: 1, maximum: 31 },
            start_year: { type: 'integer', minimum: 1000, maximum: 9999 },
            end_year: { type: 'integer', minimum: 1000, maximum: 9999 },
            ...STATS_COMMON,
            ...NORMALS_OPTIONS,
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
