import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Database } from '../../db/database.js';
import {
  allBasinsStateKey,
  executeAllBasins,
  executeAllBasinsTable,
  MAX_ALL_BASINS_DATES,
  planAllBasins,
} from '../../stats/all-basins.js';
import { executeAnswer, executeWithNormals, type StatsWithNormals } from '../../stats/anomalies.js';
import { compareStateKey, executeCompare, MAX_COMPARED, planCompare } from '../../stats/compare.js';
import { allBasinsCsvLines, compareCsvLines, csvLines } from '../../stats/csv.js';
import { type DateQuery, dayOfYear, parseDateRange } from '../../stats/dates.js';
import { drawnArea, planDrawn } from '../../stats/drawn.js';
import { planIntervening } from '../../stats/intervening.js';
import { answerNotes } from '../../stats/normals.js';
import { openStatsPlan, type StatsPlan, type StatsQuery } from '../../stats/plan.js';
import {
  CELL_PARAMS,
  httpNames,
  NORMALS_PARAMS,
  type QueryParams,
  querySchema,
  statsOptions,
} from '../../stats/query.js';
import { statsStateKey } from '../../stats/state.js';
import { admit, type Link, queryCaps } from '../http.js';
import { admitJson } from '../json-stream.js';
import { negotiate } from '../negotiate.js';
import { DATASET_PARAM, POURPOINT_PARAM } from '../schemas.js';
import {
  type BasinParams,
  basinParams,
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

/** How a stats request is planned: a basin of the database, or a drawn polygon. */
type Planner = (q: StatsQuery) => Promise<StatsPlan>;

/** Answer one stats request: negotiate, ETag/304, compute, then JSON envelope or streamed CSV. */
async function answer(
  req: FastifyRequest<{ Params: { dataset: string }; Querystring: QueryParams }>,
  reply: FastifyReply,
  dates: DateQuery,
  basin: { id: string; open: Planner; links: Link[] },
): Promise<FastifyReply> {
  const format = negotiate(req.query.f, req.headers.accept);
  const { dataset } = req.params;
  const options = statsOptions(req.query, httpNames);
  const q: StatsQuery = { dataset, pourpoint: basin.id, dates, ...options, ...queryCaps(req) };
  const plan = await basin.open(q);
  const pourpoint = plan.entry.triplet;
  if (conditional(req, reply, statsStateKey(plan), format)) return reply.code(304).send();
  if (format === 'csv')
    return sendCsv(
      reply,
      csvFileName(pourpoint, dates, options.zones.length),
      csvLines(await admit(req, reply, (exec) => executeWithNormals(plan, exec))),
    );
  // JSON: the rows stay the table they are read from until they are written.
  return admitJson(req, reply, async (exec) => {
    const body = await executeAnswer(plan, exec);
    const notes = answerNotes(dataset, plan.notes, [(body as Partial<StatsWithNormals>).reference]);
    return {
      ...body,
      pourpoint,
      dataset,
      query: dates,
      ...(notes.length > 0 && { notes }),
      links: statsLinks(req, basin.links),
    };
  });
}

/** A basin of the database, by the request's `pourpoint` (with `minus_children`, its intervening area). */
const indexed = (
  db: Database,
  req: FastifyRequest<{ Params: BasinParams; Querystring: { minus_children?: boolean } }>,
) => ({
  id: req.params.pourpoint,
  open: (q: StatsQuery) => (req.query.minus_children ? planIntervening(db, q) : openStatsPlan(db, q)),
  links: [upLink(req, req.params.pourpoint)],
});

/** The date-range and day-of-year routes' own parameter beside the stats ones. */
const MINUS_CHILDREN = {
  minus_children: z
    .boolean()
    .default(false)
    .meta({ description: 'the intervening area: the basin less the basins directly inside it' }),
};

/** A stats answer's options without normals (a comparison has none). */
const cellsOnly = ({ normals: _, ...cells }: ReturnType<typeof statsOptions>) => cells;

/** The parameters of the stats answers besides their dates. */
const STATS_PARAMS = [...CELL_PARAMS, ...NORMALS_PARAMS];

const response = conditionalResponses(
  'CompactStatsResponse',
  'the compact stats envelope (JSON) or the CSV table (a download)',
);

/** The stats routes: a basin over a date range, a basin on a day of year, every basin at once. */
export async function statsRoutes(app: FastifyInstance, db: Database): Promise<void> {
  // A drawn polygon may come as GeoJSON's own media type too.
  app.addContentTypeParser(
    'application/geo+json',
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );
  app.get<{ Params: { dataset: string }; Querystring: QueryParams & { date: string; last_held?: boolean } }>(
    '/datasets/:dataset/stats',
    {
      schema: {
        tags: ['stats'],
        summary: `Statistics of every covered basin for one date or a short range (at most ${MAX_ALL_BASINS_DATES} dates)`,
        params: { type: 'object', properties: { dataset: DATASET_PARAM }, required: ['dataset'] },
        querystring: querySchema(STATS_PARAMS, {
          date: z.string().meta({
            description: 'one ISO date, or start/end (inclusive)',
            examples: ['2024-04-01', '2024-03-25/2024-04-01'],
          }),
          last_held: z.boolean().default(false).meta({
            description: "only the newest date held among those selected (a map's colours as of a day)",
          }),
        }),
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
      const q = {
        dataset,
        dates,
        lastHeld: req.query.last_held,
        ...statsOptions(req.query, httpNames),
        ...queryCaps(req),
      };
      const plan = await planAllBasins(db, q);
      if (conditional(req, reply, await allBasinsStateKey(plan), format)) return reply.code(304).send();
      if (format === 'csv')
        return sendCsv(
          reply,
          `${dataset}_${datesPart(dates)}_all.csv`,
          allBasinsCsvLines(await admit(req, reply, (exec) => executeAllBasins(plan, exec))),
        );
      return admitJson(req, reply, async (exec) => {
        const body = await executeAllBasinsTable(plan, exec);
        const notes = answerNotes(
          dataset,
          plan.notes,
          body.basins.map((b) => b.reference),
        );
        return { ...body, dataset, query: dates, ...(notes.length > 0 && { notes }), links: statsLinks(req) };
      });
    },
  );
  app.get<{ Params: BasinParams; Querystring: QueryParams & { datetime: string; minus_children?: boolean } }>(
    '/datasets/:dataset/stats/:pourpoint/date-range',
    {
      schema: {
        tags: ['stats'],
        summary: 'Stratified statistics of a basin over a date range',
        params: basinParams,
        querystring: querySchema(STATS_PARAMS, {
          ...MINUS_CHILDREN,
          datetime: z.string().meta({
            description: "start/end, ISO dates, inclusive; '..' or empty leaves an end open; one date alone",
            examples: ['2024-01-01/2024-06-30', '2024-04-01', '2024-01-01/..'],
          }),
        }),
        response,
      },
    },
    (req, reply) => answer(req, reply, parseDateRange(req.query.datetime), indexed(db, req)),
  );
  app.post<{
    Params: { dataset: string };
    Querystring: QueryParams & { datetime: string; minus_children?: boolean };
    Body: unknown;
  }>(
    '/datasets/:dataset/stats/area',
    {
      bodyLimit: 8 * 1024 * 1024,
      schema: {
        tags: ['stats'],
        summary:
          'Stratified statistics of a drawn polygon (a GeoJSON Polygon or MultiPolygon, bare or in a Feature, in the body) over a date range: the answer an imported basin of the same polygon gets',
        params: { type: 'object', properties: { dataset: DATASET_PARAM }, required: ['dataset'] },
        querystring: querySchema(STATS_PARAMS, {
          datetime: z.string().meta({
            description: "start/end, ISO dates, inclusive; '..' or empty leaves an end open; one date alone",
            examples: ['2025-03-01/2025-04-30'],
          }),
        }),
        body: {
          type: 'object',
          description: 'GeoJSON: a Polygon or MultiPolygon in WGS 84 lon/lat, or a Feature holding one',
          required: ['type'],
          additionalProperties: true,
        },
        response,
      },
    },
    (req, reply) => {
      // Checked for shape and made flat now; the parsed JSON is let go while the request waits.
      const area = drawnArea(req.body, 'the request body');
      (req as { body: unknown }).body = null;
      return answer(req, reply, parseDateRange(req.query.datetime), {
        id: 'drawn',
        // The polygon is checked and covered on a worker in a slot of the gate, inside the time
        // limit (30 drawn polygons at once froze every route while they were prepared ahead of it).
        open: (q) =>
          admit(req, reply, (exec) => planDrawn(db, { ...q, area, label: 'the request body' }, exec.signal)),
        links: [],
      });
    },
  );
  app.get<{
    Params: BasinParams;
    Querystring: QueryParams & {
      month: number;
      day: number;
      start_year: number;
      end_year: number;
      minus_children?: boolean;
    };
  }>(
    '/datasets/:dataset/stats/:pourpoint/doy',
    {
      schema: {
        tags: ['stats'],
        summary: 'Stratified statistics of a basin on one calendar day in every year of a span',
        params: basinParams,
        querystring: querySchema(STATS_PARAMS, {
          ...MINUS_CHILDREN,
          month: z.int().min(1).max(12),
          day: z.int().min(1).max(31),
          start_year: z.int().min(1000).max(9999),
          end_year: z.int().min(1000).max(9999),
        }),
        response,
      },
    },
    (req, reply) => {
      const { month, day, start_year, end_year } = req.query;
      return answer(req, reply, dayOfYear(month, day, start_year, end_year), indexed(db, req));
    },
  );
  app.get<{
    Params: { pourpoint: string };
    Querystring: QueryParams & { datetime: string; dataset: string[] };
  }>(
    '/pourpoints/:pourpoint/compare',
    {
      schema: {
        tags: ['stats'],
        summary: `Several datasets side by side for one basin (2 to ${MAX_COMPARED}): each dataset's stats on its own grid, with the basin's area on it`,
        params: { type: 'object', properties: { pourpoint: POURPOINT_PARAM }, required: ['pourpoint'] },
        querystring: querySchema(CELL_PARAMS, {
          dataset: z
            .array(z.string())
            .meta({ description: 'an active dataset; repeat it (2 to 4)', examples: [['snodas', 'swann']] }),
          datetime: z.string().meta({
            description: "start/end, ISO dates, inclusive; '..' or empty leaves an end open; one date alone",
            examples: ['2025-03-01/2025-04-30'],
          }),
        }),
        response: conditionalResponses(
          'CompareResponse',
          "each dataset's stats (JSON) or one CSV table with a dataset column",
        ),
      },
    },
    async (req, reply) => {
      const format = negotiate(req.query.f, req.headers.accept);
      const { pourpoint } = req.params;
      const { dataset: datasets, datetime, ...params } = req.query;
      const dates = parseDateRange(datetime);
      const plan = await planCompare(db, {
        datasets,
        pourpoint,
        dates,
        ...cellsOnly(statsOptions(params, httpNames)),
        ...queryCaps(req),
      });
      if (conditional(req, reply, compareStateKey(plan), format)) return reply.code(304).send();
      if (format === 'csv')
        return sendCsv(
          reply,
          `${pourpoint.replaceAll(':', '-')}_${datesPart(dates)}_${datasets.join('-')}.csv`,
          compareCsvLines(await admit(req, reply, (exec) => executeCompare(plan, exec))),
        );
      return admitJson(req, reply, async (exec) => ({
        ...(await executeCompare(plan, exec)),
        query: dates,
        links: statsLinks(req, [upLink(req, pourpoint)]),
      }));
    },
  );
}
