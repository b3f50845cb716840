import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/database.js';
import { csvLines } from '../../stats/csv.js';
import { parseYearSpan } from '../../stats/dates.js';
import {
  answerNotes,
  executeNormals,
  normalsOf,
  normalsStateKey,
  openNormalsPlan,
} from '../../stats/normals.js';
import { executeWaterYears, openWaterYearsPlan, waterYearsStateKey } from '../../stats/summaries.js';
import { admit, queryCaps, sendJson } from '../http.js';
import { negotiate } from '../negotiate.js';
import { STATS_COMMON, YEAR_SPAN } from '../schemas.js';
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

const { valid_fraction: _, ...CELL } = STATS_COMMON;

const ok = (ref: string, what: string) =>
  conditionalResponses(ref, `${what} (JSON) or the CSV table (a download)`);

/** Day-of-year normals and water-year summaries of one basin. */
export async function historyRoutes(app: FastifyInstance, db: Database): Promise<void> {
  app.get<{ Params: BasinParams; Querystring: Common & { normals_years?: string } }>(
    '/datasets/:dataset/stats/:pourpoint/normals',
    {
      schema: {
        tags: ['stats'],
        summary:
          'Day-of-year normals of a basin: per day of the water year and cell, median, mean, p10, p90, min, max and years',
        params: basinParams,
        querystring: {
          type: 'object',
          properties: {
            normals_years: {
              ...YEAR_SPAN,
              description:
                'reference water years (default: every water year before the current one; a year counts for a day when it holds that day)',
            },
            ...CELL,
          },
          additionalProperties: false,
        },
        response: ok('NormalsResponse', 'the compact normals body'),
      },
    },
    async (req, reply) => {
      const format = negotiate(req.query.f, req.headers.accept);
      const { dataset, pourpoint } = req.params;
      const y = req.query.normals_years;
      const q = {
        dataset,
        pourpoint,
        ...cellOptions(req.query),
        ...queryCaps(req),
        years: y === undefined ? undefined : parseYearSpan(y, 'normals_years'),
      };
      const plan = await openNormalsPlan(db, q);
      if (conditional(req, reply, normalsStateKey(plan), format)) return reply.code(304).send();
      const body = normalsOf(await admit(req, reply, (exec) => executeNormals(plan, exec)));
      if (format === 'csv')
        return sendCsv(reply, `${pourpoint.replaceAll(':', '-')}_normals.csv`, csvLines(body, 'day'));
      const notes = answerNotes(dataset, [], [body.reference]);
      return sendJson(reply, {
        ...body,
        pourpoint,
        dataset,
        ...(notes.length > 0 && { notes }),
        links: statsLinks(req, [upLink(req, pourpoint)]),
      });
    },
  );
  app.get<{
    Params: BasinParams;
    Querystring: Omit<Common, 'variable'> & { variable?: string; years?: string; melt_out_below?: number };
  }>(
    '/datasets/:dataset/stats/:pourpoint/water-years',
    {
      schema: {
        tags: ['stats'],
        summary: 'Water-year summaries of a basin: peak SWE and its date, melt-out date, SWE on 1 April',
        params: basinParams,
        querystring: {
          type: 'object',
          properties: {
            years: { ...YEAR_SPAN, description: 'water years (default: every water year with a date)' },
            melt_out_below: {
              type: 'number',
              minimum: 0,
              maximum: 100_000,
              description: "melt-out threshold in the mean's unit (default 1 mm, 0.04 in)",
            },
            ...CELL,
            variable: { type: 'string', default: 'swe', description: 'a water variable' },
          },
          additionalProperties: false,
        },
        response: ok('WaterYearsResponse', 'per water year and cell: peak, its date, melt-out, 1 April'),
      },
    },
    async (req, reply) => {
      const format = negotiate(req.query.f, req.headers.accept);
      const { dataset, pourpoint } = req.params;
      const q = {
        dataset,
        pourpoint,
        ...cellOptions({ ...req.query, variable: undefined }),
        ...queryCaps(req),
        variable: req.query.variable,
        years: req.query.years === undefined ? undefined : parseYearSpan(req.query.years, 'years'),
        meltOutBelow: req.query.melt_out_below,
      };
      const plan = await openWaterYearsPlan(db, q);
      if (conditional(req, reply, waterYearsStateKey(plan), format)) return reply.code(304).send();
      const body = await admit(req, reply, (exec) => executeWaterYears(plan, exec));
      if (format === 'csv')
        return sendCsv(
          reply,
          `${pourpoint.replaceAll(':', '-')}_water-years.csv`,
          csvLines(body, 'water_year'),
        );
      return sendJson(reply, {
        ...body,
        pourpoint,
        dataset,
        links: statsLinks(req, [upLink(req, pourpoint)]),
      });
    },
  );
}
