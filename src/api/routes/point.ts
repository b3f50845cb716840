import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Database } from '../../db/database.js';
import { pointCsvLines } from '../../stats/csv.js';
import { parseDateRange } from '../../stats/dates.js';
import { executePoint, openPointPlan } from '../../stats/point.js';
import { querySchema } from '../../stats/query.js';
import type { Units } from '../../stats/units.js';
import { admit, queryCaps } from '../http.js';
import { admitJson } from '../json-stream.js';
import { negotiate } from '../negotiate.js';
import { DATASET_PARAM, problemResponses } from '../schemas.js';
import { sendCsv, statsLinks } from '../tables.js';

/** A point: the values of the grid cell holding a lon/lat position. */
export async function pointRoutes(app: FastifyInstance, db: Database): Promise<void> {
  app.get<{
    Params: { dataset: string };
    Querystring: {
      lon: number;
      lat: number;
      datetime: string;
      variable?: string[];
      units: Units;
      f?: 'json' | 'csv';
    };
  }>(
    '/datasets/:dataset/point',
    {
      schema: {
        tags: ['stats'],
        summary:
          "The values of the grid cell holding a WGS 84 point, per date and variable, with the cell's column, row, centre and bounds",
        params: { type: 'object', properties: { dataset: DATASET_PARAM }, required: ['dataset'] },
        querystring: querySchema(['variable', 'units', 'f'], {
          lon: z
            .number()
            .min(-180)
            .max(180)
            .meta({ description: 'longitude, WGS 84 degrees', examples: [-113.05] }),
          lat: z
            .number()
            .min(-90)
            .max(90)
            .meta({ description: 'latitude, WGS 84 degrees', examples: [37.3] }),
          datetime: z.string().meta({
            description: "start/end, ISO dates, inclusive; '..' or empty leaves an end open; one date alone",
            examples: ['2025-03-01/2025-04-30'],
          }),
        }),
        response: {
          200: {
            description:
              '`{dataset, lon, lat, cell, variables, results: {date: [value per variable]}}` (JSON) or CSV',
            content: {
              'application/json': { schema: { type: 'object', additionalProperties: true } },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          ...problemResponses(400, 404, 422),
        },
      },
    },
    async (req, reply) => {
      const format = negotiate(req.query.f, req.headers.accept);
      const { dataset } = req.params;
      const { lon, lat, datetime, variable, units } = req.query;
      const plan = await openPointPlan(db, {
        dataset,
        lon,
        lat,
        dates: parseDateRange(datetime),
        variables: variable,
        units,
        ...queryCaps(req),
      });
      if (format === 'csv')
        return sendCsv(
          reply,
          `${dataset}_point_${lon}_${lat}.csv`,
          pointCsvLines(await admit(req, reply, (exec) => executePoint(plan, exec), 'cheap')),
        );
      // One cell a date: the cheap lane, never behind the scans.
      return admitJson(
        req,
        reply,
        async (exec) => ({
          dataset,
          ...(await executePoint(plan, exec)),
          ...(plan.notes.length > 0 && { notes: plan.notes }),
          links: statsLinks(req),
        }),
        'cheap',
      );
    },
  );
}
