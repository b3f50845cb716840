import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Database } from '../../db/database.js';
import {
  allWaterYearsStateKey,
  executeAllWaterYears,
  planAllWaterYears,
} from '../../stats/all-water-years.js';
import { changesStateKey, executeChanges, openChangesPlan } from '../../stats/changes.js';
import { allBasinsCsvLines, type CellTable, csvLines } from '../../stats/csv.js';
import { parseDateRange } from '../../stats/dates.js';
import type { ExecuteOptions } from '../../stats/engine.js';
import {
  answerNotes,
  executeNormals,
  normalsOf,
  normalsStateKey,
  openNormalsPlan,
} from '../../stats/normals.js';
import {
  CELL_PARAMS,
  httpNames,
  NORMALS_PARAMS,
  normalsOptions,
  type QueryParams,
  querySchema,
  statsOptions,
  waterYearsOptions,
} from '../../stats/query.js';
import { executeSnowline, openSnowlinePlan, snowlineStateKey, snowlineTable } from '../../stats/snowline.js';
import { executeWaterYears, openWaterYearsPlan, waterYearsStateKey } from '../../stats/summaries.js';
import { admit, queryCaps } from '../http.js';
import { admitJson } from '../json-stream.js';
import { negotiate } from '../negotiate.js';
import { DATASET_PARAM } from '../schemas.js';
import {
  type BasinParams,
  basinParams,
  conditional,
  conditionalResponses,
  sendCsv,
  statsLinks,
  upLink,
} from '../tables.js';

/** The cell parameters of normals and water-years (every cell has its values: no valid fraction). */
const CELLS = CELL_PARAMS.filter((p) => p !== 'valid_fraction');

const ok = (ref: string, what: string) =>
  conditionalResponses(ref, `${what} (JSON) or the CSV table (a download)`);

/**
 * Answer a one-basin table view (water years, snow line, changes): its ETag (304 on a match), then
 * inside the admission gate the CSV download `<triplet>_<name>.csv` keyed by `key`, or the JSON
 * body with `pourpoint`, `dataset`, any `notes` and links.
 */
async function basinTable<T extends object = CellTable>(
  req: FastifyRequest<{ Params: BasinParams; Querystring: { f?: 'json' | 'csv' } }>,
  reply: FastifyReply,
  view: {
    stateKey: string;
    name: string;
    key?: string;
    notes?: readonly string[];
    execute: (exec: ExecuteOptions) => Promise<T>;
    /** The table CSV writes (default: the body itself). */
    table?: (body: T) => CellTable;
  },
): Promise<unknown> {
  const table = view.table ?? ((b: T) => b as unknown as CellTable);
  const format = negotiate(req.query.f, req.headers.accept);
  const { dataset, pourpoint } = req.params;
  if (conditional(req, reply, view.stateKey, format)) return reply.code(304).send();
  if (format === 'csv')
    return sendCsv(
      reply,
      `${pourpoint.replaceAll(':', '-')}_${view.name}.csv`,
      csvLines(table(await admit(req, reply, view.execute)), view.key),
    );
  return admitJson(req, reply, async (exec) => ({
    ...(await view.execute(exec)),
    pourpoint,
    dataset,
    ...(view.notes && view.notes.length > 0 && { notes: view.notes }),
    links: statsLinks(req, [upLink(req, pourpoint)]),
  }));
}

/** Day-of-year normals and water-year summaries of one basin. */
export async function historyRoutes(app: FastifyInstance, db: Database): Promise<void> {
  app.get<{ Params: BasinParams; Querystring: QueryParams }>(
    '/datasets/:dataset/stats/:pourpoint/normals',
    {
      schema: {
        tags: ['stats'],
        summary:
          'Day-of-year normals of a basin: per day of the water year and cell, median, mean, p10, p90, min, max and years',
        params: basinParams,
        querystring: querySchema(['normals_years', ...CELLS]),
        response: ok('NormalsResponse', 'the compact normals body'),
      },
    },
    async (req, reply) => {
      const format = negotiate(req.query.f, req.headers.accept);
      const { dataset, pourpoint } = req.params;
      const q = { dataset, pourpoint, ...normalsOptions(req.query, httpNames), ...queryCaps(req) };
      const plan = await openNormalsPlan(db, q);
      if (conditional(req, reply, normalsStateKey(plan), format)) return reply.code(304).send();
      if (format === 'csv') {
        const body = normalsOf(await admit(req, reply, (exec) => executeNormals(plan, exec)));
        return sendCsv(reply, `${pourpoint.replaceAll(':', '-')}_normals.csv`, csvLines(body, 'day'));
      }
      return admitJson(req, reply, async (exec) => {
        const body = normalsOf(await executeNormals(plan, exec));
        const notes = answerNotes(dataset, [], [body.reference]);
        return {
          ...body,
          pourpoint,
          dataset,
          ...(notes.length > 0 && { notes }),
          links: statsLinks(req, [upLink(req, pourpoint)]),
        };
      });
    },
  );
  app.get<{
    Params: { dataset: string };
    Querystring: Omit<QueryParams, 'variable'> & { variable: string; water_year: number };
  }>(
    '/datasets/:dataset/water-years',
    {
      schema: {
        tags: ['stats'],
        summary:
          "Every covered basin's summary of one water year (peak, its date, melt-out, 1 April; with normals, % of median peak)",
        params: { type: 'object', properties: { dataset: DATASET_PARAM }, required: ['dataset'] },
        querystring: querySchema(
          ['melt_out_below', ...NORMALS_PARAMS, ...CELLS.filter((p) => p !== 'variable')],
          {
            water_year: z
              .int()
              .min(1000)
              .max(9999)
              .meta({
                description: 'the water year, named by its end (2024: 1 October 2023 – 30 September 2024)',
                examples: [2024],
              }),
            variable: z.string().default('swe').meta({ description: 'a water variable' }),
          },
        ),
        response: conditionalResponses(
          'AllWaterYearsResponse',
          'every covered basin, sorted by triplet (JSON), or one CSV table with a pourpoint column',
        ),
      },
    },
    async (req, reply) => {
      const format = negotiate(req.query.f, req.headers.accept);
      const { dataset } = req.params;
      const { variable, water_year, ...params } = req.query;
      const q = {
        dataset,
        ...waterYearsOptions(params, httpNames),
        ...queryCaps(req),
        variable,
        year: water_year,
      };
      const plan = await planAllWaterYears(db, q);
      if (conditional(req, reply, await allWaterYearsStateKey(plan), format)) return reply.code(304).send();
      if (format === 'csv')
        return sendCsv(
          reply,
          `${dataset}_WY${water_year}_all.csv`,
          allBasinsCsvLines(
            await admit(req, reply, (exec) => executeAllWaterYears(plan, exec)),
            'water_year',
          ),
        );
      return admitJson(req, reply, async (exec) => ({
        ...(await executeAllWaterYears(plan, exec)),
        dataset,
        ...(plan.notes.length > 0 && { notes: plan.notes }),
        links: statsLinks(req),
      }));
    },
  );
  app.get<{
    Params: BasinParams;
    Querystring: Omit<QueryParams, 'variable'> & { variable: string };
  }>(
    '/datasets/:dataset/stats/:pourpoint/water-years',
    {
      schema: {
        tags: ['stats'],
        summary: 'Water-year summaries of a basin: peak SWE and its date, melt-out date, SWE on 1 April',
        params: basinParams,
        querystring: querySchema(
          ['years', 'melt_out_below', ...NORMALS_PARAMS, ...CELLS.filter((p) => p !== 'variable')],
          {
            variable: z.string().default('swe').meta({ description: 'a water variable' }),
          },
        ),
        response: ok('WaterYearsResponse', 'per water year and cell: peak, its date, melt-out, 1 April'),
      },
    },
    async (req, reply) => {
      const { dataset, pourpoint } = req.params;
      const { variable, ...params } = req.query;
      const q = { dataset, pourpoint, ...waterYearsOptions(params, httpNames), ...queryCaps(req), variable };
      const plan = await openWaterYearsPlan(db, q);
      return basinTable(req, reply, {
        stateKey: waterYearsStateKey(plan),
        name: 'water-years',
        key: 'water_year',
        execute: (exec) => executeWaterYears(plan, exec),
      });
    },
  );
  app.get<{
    Params: BasinParams;
    Querystring: {
      datetime: string;
      threshold?: number;
      band_step_ft?: number;
      variable?: string;
      f?: 'json' | 'csv';
      normals?: boolean;
      normals_years?: string;
    };
  }>(
    '/datasets/:dataset/snowline/:pourpoint/date-range',
    {
      schema: {
        tags: ['stats'],
        summary:
          'Snow line of a basin per date: the elevation where a snow-cover fraction crosses a threshold, interpolated between the lowest bracketing pair of elevation bands',
        params: basinParams,
        querystring: querySchema(['f', ...NORMALS_PARAMS], {
          datetime: z.string().meta({
            description: "start/end, ISO dates, inclusive; '..' or empty leaves an end open; one date alone",
            examples: ['2024-03-01/2024-06-30'],
          }),
          threshold: z
            .number()
            .default(50)
            .meta({ description: "in the variable's unit (a fraction's percent, in [0, 100]; SWE in mm…)" }),
          band_step_ft: z
            .int()
            .min(1)
            .max(100_000)
            .default(500)
            .meta({ description: 'elevation band height, ft' }),
          variable: z.string().optional().meta({
            description: 'any variable of the dataset (default its snow-cover fraction, snow_fraction)',
          }),
          allow_partial: z.boolean().default(false).meta({
            description:
              "accepted as the reference tool's clients send it; snowdb answers a partly covered basin either way",
          }),
        }),
        response: ok('SnowlineResponse', 'per date: the snow line and the two bands it lies between'),
      },
    },
    async (req, reply) => {
      const { dataset, pourpoint } = req.params;
      const { datetime, threshold, band_step_ft, variable, normals, normals_years } = req.query;
      const q = {
        dataset,
        pourpoint,
        dates: parseDateRange(datetime),
        threshold,
        bandStepFt: band_step_ft,
        variable,
        normals: statsOptions({ normals, normals_years }, httpNames).normals,
        ...queryCaps(req),
      };
      const plan = await openSnowlinePlan(db, q);
      return basinTable(req, reply, {
        stateKey: snowlineStateKey(plan),
        name: 'snowline',
        execute: (exec) => executeSnowline(plan, exec),
        table: snowlineTable,
      });
    },
  );
  app.get<{
    Params: BasinParams;
    Querystring: Omit<QueryParams, 'variable'> & { datetime: string; variable: string };
  }>(
    '/datasets/:dataset/stats/:pourpoint/changes',
    {
      schema: {
        tags: ['stats'],
        summary:
          'Change metrics of a basin per date and cell: 1-day and 7-day change, cumulative gain and melt since 1 October, water-year-to-date precipitation',
        params: basinParams,
        querystring: querySchema([...CELLS.filter((p) => p !== 'variable'), ...NORMALS_PARAMS], {
          datetime: z.string().meta({
            description: "start/end, ISO dates, inclusive; '..' or empty leaves an end open; one date alone",
            examples: ['2025-03-01/2025-04-30'],
          }),
          variable: z.string().default('swe').meta({ description: 'a water variable' }),
        }),
        response: ok(
          'ChangesResponse',
          'per date and cell: the value, its changes and the water year so far',
        ),
      },
    },
    async (req, reply) => {
      const { dataset, pourpoint } = req.params;
      const { variable, datetime, ...params } = req.query;
      const q = {
        dataset,
        pourpoint,
        dates: parseDateRange(datetime),
        ...waterYearsOptions(params, httpNames),
        ...queryCaps(req),
        variable,
      };
      const plan = await openChangesPlan(db, q);
      return basinTable(req, reply, {
        stateKey: changesStateKey(plan),
        name: 'changes',
        notes: answerNotes(dataset, plan.stats.notes, [plan.reference ?? undefined]),
        execute: (exec) => executeChanges(plan, exec),
      });
    },
  );
}
