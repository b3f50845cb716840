import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Database } from '../../db/database.js';
import { EXPORT_TEMP_PREFIX } from '../../db/layout.js';
import { QueryParameterError } from '../../errors.js';
import { FORMATS, type Format, planExport } from '../../export/plan.js';
import { runExport } from '../../export/run.js';
import { parseDateRange } from '../../stats/dates.js';
import { httpNames, querySchema, statsOptions } from '../../stats/query.js';
import type { Units } from '../../stats/units.js';
import { admit } from '../http.js';
import { DATASET_PARAM, problemResponses } from '../schemas.js';

const CONTENT_TYPES: Readonly<Record<Format, string>> = {
  parquet: 'application/vnd.apache.parquet',
  netcdf: 'application/x-netcdf',
  csv: 'text/csv; charset=utf-8',
};
const EXTENSIONS: Readonly<Record<Format, string>> = { parquet: 'parquet', netcdf: 'nc', csv: 'csv' };

/** Most dates one HTTP export holds (a water year); longer histories: `snowdb export`, or the static files. */
export const MAX_HTTP_EXPORT_DATES = 366;

/** Bulk export over HTTP: every selected basin × cell × date of a bounded range, as Parquet or CSV. */
export async function exportRoutes(app: FastifyInstance, db: Database): Promise<void> {
  app.get<{
    Params: { dataset: string };
    Querystring: {
      datetime: string;
      format: Format;
      basin?: string[];
      set?: string;
      zone?: string[];
      variable?: string[];
      units: Units;
      normals: boolean;
      normals_years?: string;
    };
  }>(
    '/datasets/:dataset/export',
    {
      schema: {
        tags: ['stats'],
        summary: `Every selected basin × zone cell × date of at most ${MAX_HTTP_EXPORT_DATES} dates as one Parquet or NetCDF-4 file or a CSV table (as snowdb export)`,
        params: { type: 'object', properties: { dataset: DATASET_PARAM }, required: ['dataset'] },
        querystring: querySchema(['zone', 'variable', 'units', 'normals', 'normals_years'], {
          datetime: z
            .string()
            .meta({ description: 'start/end, ISO dates, inclusive', examples: ['2024-10-01/2025-09-30'] }),
          format: z.enum(FORMATS).default('parquet'),
          basin: z
            .array(z.string())
            .optional()
            .meta({ description: 'basin id, repeatable (default: every covered basin)' }),
          set: z.string().optional().meta({ description: "a basin set's members only" }),
        }),
        response: {
          200: {
            description:
              'the file: `pourpoint`, `date`, the zone columns, `area_m2`, one column per statistic',
            content: {
              'application/vnd.apache.parquet': { schema: { type: 'string', format: 'binary' } },
              'application/x-netcdf': { schema: { type: 'string', format: 'binary' } },
              'text/csv': { schema: { type: 'string' } },
            },
          },
          ...problemResponses(400, 404, 422, 503),
        },
      },
    },
    async (req, reply) => {
      const q = req.query;
      const { zones, variables, units, normals } = statsOptions(
        {
          zone: q.zone,
          variable: q.variable,
          units: q.units,
          normals: q.normals,
          normals_years: q.normals_years,
        },
        httpNames,
      );
      const plan = await planExport(db, {
        dataset: req.params.dataset,
        basins: q.basin,
        set: q.set,
        dates: parseDateRange(q.datetime),
        zones,
        variables,
        units,
        normals,
        format: q.format,
        layout: 'long',
      });
      if (plan.dates > MAX_HTTP_EXPORT_DATES)
        throw new QueryParameterError(
          `${plan.dates} dates selected; an HTTP export holds at most ${MAX_HTTP_EXPORT_DATES} (a water year): ask for a shorter range, or run 'snowdb export'`,
          { parameter: 'datetime' },
        );
      // Written under the admission gate into a temp file (a Parquet footer comes last), then sent and removed.
      const file = join(tmpdir(), `${EXPORT_TEMP_PREFIX}${process.pid}-${req.id}.${EXTENSIONS[q.format]}`);
      await admit(req, reply, (exec) => runExport(plan, file, exec));
      const name = `${req.params.dataset}_${plan.chunks[0]![0]}_${plan.chunks.at(-1)!.at(-1)}.${EXTENSIONS[q.format]}`;
      // Opened, then unlinked before the answer starts (POSIX: the open descriptor keeps the bytes),
      // so no temp file outlives the request; where an open file cannot be unlinked, after the send.
      const handle = await open(file);
      const stream = handle.createReadStream();
      if (
        !(await rm(file).then(
          () => true,
          () => false,
        ))
      )
        stream.once('close', () => void rm(file, { force: true }));
      return reply
        .type(CONTENT_TYPES[q.format])
        .header('Content-Disposition', `attachment; filename="${name}"`)
        .send(stream);
    },
  );
}
