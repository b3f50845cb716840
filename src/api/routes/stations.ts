import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Database } from '../../db/database.js';
import { parseSeason } from '../../stations/forecast-point.js';
import { basinStations, MAX_WITHIN_KM } from '../../stations/place.js';
import { basinIndex, stationSeries, stationVsGrid } from '../../stations/queries.js';
import {
  forecastOf,
  m4CsvLines,
  m4Table,
  PREDICTORS,
  type Predictor,
  regression,
} from '../../stations/regression.js';
import { stationList } from '../../stations/store.js';
import { keyedCsvLines } from '../../stats/csv.js';
import { parseDateRange, parseYearSpan } from '../../stats/dates.js';
import { querySchema } from '../../stats/query.js';
import type { Units } from '../../stats/units.js';
import { admit, queryCaps } from '../http.js';
import { negotiate } from '../negotiate.js';
import { DATASET_PARAM, POURPOINT_PARAM, problemResponses } from '../schemas.js';
import { sendCsv, statsLinks } from '../tables.js';

const TRIPLET_PARAM = {
  type: 'string',
  pattern: '^[a-zA-Z0-9-]+:[a-zA-Z]{2}:[a-zA-Z]+$',
  description: 'AWDB station triplet `<station>:<state>:<network>`',
  examples: ['1098:UT:SNTL'],
} as const;

const json = (description: string, csv = false) => ({
  200: {
    description,
    content: {
      'application/json': { schema: { type: 'object', additionalProperties: true } },
      ...(csv && { 'text/csv': { schema: { type: 'string' } } }),
    },
  },
});

const datetime = z
  .string()
  .optional()
  .meta({
    description: "start/end, ISO dates, inclusive; '..' or empty leaves an end open",
    examples: ['2025-01-01/2025-04-30'],
  });
const within = z
  .number()
  .min(0)
  .max(MAX_WITHIN_KM)
  .default(0)
  .meta({ description: 'also stations this far outside the basin, km' });
const period = z.string().default('APR-JUL').meta({ description: 'the season, e.g. APR-JUL or 4-7' });

type Keyed = { variables: string[]; results: Record<string, (number | null)[]> };

/** A keyed body as JSON (with links) or CSV, as the request negotiates. */
function send(
  req: FastifyRequest<{ Querystring: { f?: 'json' | 'csv' } }>,
  reply: FastifyReply,
  name: string,
  body: Keyed,
) {
  if (negotiate(req.query.f, req.headers.accept) === 'csv')
    return sendCsv(reply, `${name}.csv`, keyedCsvLines(body));
  return { ...body, links: statsLinks(req) };
}

const file = (s: string) => s.replaceAll(':', '-');

/** AWDB stations beside the grid, and the basins' forecast points. */
export async function stationRoutes(app: FastifyInstance, db: Database): Promise<void> {
  app.get(
    '/stations',
    {
      schema: {
        tags: ['stations'],
        summary: 'Every synced AWDB station, with where and when it was fetched',
        response: { ...json('`{source, synced_at, networks, stations}`'), ...problemResponses(409) },
      },
    },
    () => stationList(db),
  );
  app.get<{
    Params: { triplet: string };
    Querystring: { datetime?: string; units: Units; normals_years?: string; f?: 'json' | 'csv' };
  }>(
    '/stations/:triplet',
    {
      schema: {
        tags: ['stations'],
        summary: "A station's values per day (surveys for snow courses), with SWE's median and % of median",
        params: { type: 'object', properties: { triplet: TRIPLET_PARAM }, required: ['triplet'] },
        querystring: querySchema(['units', 'f', 'normals_years'], { datetime }),
        response: {
          ...json('`{station, kind, median_source, variables, results: {date: [...]}}`', true),
          ...problemResponses(400, 404, 409, 422),
        },
      },
    },
    async (req, reply) => {
      const body = await stationSeries(db, {
        triplet: req.params.triplet,
        dates: parseDateRange(req.query.datetime ?? '../..'),
        units: req.query.units,
        reference:
          req.query.normals_years === undefined
            ? undefined
            : parseYearSpan(req.query.normals_years, 'normals_years'),
      });
      return send(req, reply, file(req.params.triplet), body);
    },
  );
  app.get<{
    Params: { dataset: string; triplet: string };
    Querystring: { datetime?: string; units: Units; f?: 'json' | 'csv' };
  }>(
    '/datasets/:dataset/stations/:triplet',
    {
      schema: {
        tags: ['stations'],
        summary:
          "A station against the grid cell holding it, on the dataset's dates: station, cell and station ÷ cell",
        params: {
          type: 'object',
          properties: { dataset: DATASET_PARAM, triplet: TRIPLET_PARAM },
          required: ['dataset', 'triplet'],
        },
        querystring: querySchema(['units', 'f'], { datetime }),
        response: {
          ...json('`{dataset, station, cell, variables, results: {date: [...]}}`', true),
          ...problemResponses(400, 404, 409, 422),
        },
      },
    },
    async (req, reply) => {
      const { dataset, triplet } = req.params;
      const q = {
        triplet,
        dates: parseDateRange(req.query.datetime ?? '../..'),
        units: req.query.units,
        ...queryCaps(req),
      };
      // The grid's values are a stats query: under the admission gate, as every query of the rasters.
      const body = await admit(req, reply, (exec) => stationVsGrid(db, dataset, q, exec));
      return send(req, reply, `${dataset}_${file(triplet)}`, body);
    },
  );
  app.get<{ Params: { pourpoint: string }; Querystring: { within_km: number; band_step_ft: number } }>(
    '/pourpoints/:pourpoint/stations',
    {
      schema: {
        tags: ['stations'],
        summary:
          'The stations inside a basin and within a distance of it, nearest first, with elevation and elevation band',
        params: { type: 'object', properties: { pourpoint: POURPOINT_PARAM }, required: ['pourpoint'] },
        querystring: querySchema([], {
          within_km: within,
          band_step_ft: z
            .number()
            .int()
            .min(100)
            .max(5000)
            .default(1000)
            .meta({ description: 'elevation band width, ft' }),
        }),
        response: {
          ...json('`{pourpoint, within_km, band_step_ft, stations: [...]}`'),
          ...problemResponses(404, 409, 422),
        },
      },
    },
    (req) => basinStations(db, req.params.pourpoint, req.query.within_km, req.query.band_step_ft),
  );
  app.get<{
    Params: { pourpoint: string };
    Querystring: { datetime: string; within_km: number; units: Units; f?: 'json' | 'csv' };
  }>(
    '/pourpoints/:pourpoint/station-index',
    {
      schema: {
        tags: ['stations'],
        summary:
          "A basin's station index per day (NRCS): 100 × Σ current SWE ÷ Σ median SWE of its sites with both",
        params: { type: 'object', properties: { pourpoint: POURPOINT_PARAM }, required: ['pourpoint'] },
        querystring: querySchema(['units', 'f'], {
          datetime: z
            .string()
            .meta({ description: 'start/end, ISO dates, inclusive', examples: ['2025-04-01'] }),
          within_km: within,
        }),
        response: {
          ...json('`{pourpoint, stations, median_source, variables, results}`', true),
          ...problemResponses(400, 404, 409, 422),
        },
      },
    },
    async (req, reply) => {
      const body = await basinIndex(db, req.params.pourpoint, {
        dates: parseDateRange(req.query.datetime),
        withinKm: req.query.within_km,
        units: req.query.units,
      });
      return send(req, reply, `${file(req.params.pourpoint)}_station-index`, body);
    },
  );
  app.get<{ Params: { pourpoint: string }; Querystring: { period: string } }>(
    '/pourpoints/:pourpoint/forecast',
    {
      schema: {
        tags: ['stations'],
        summary:
          "A basin's forecast point: the season's observed volume each water year and NRCS's published forecasts",
        params: { type: 'object', properties: { pourpoint: POURPOINT_PARAM }, required: ['pourpoint'] },
        querystring: querySchema([], { period }),
        response: {
          ...json('`{forecast_point, season, volume_unit, volumes, forecasts}`'),
          ...problemResponses(400, 404, 409, 422),
        },
      },
    },
    (req) => forecastOf(db, req.params.pourpoint, parseSeason(req.query.period)),
  );
  app.get<{
    Params: { dataset: string; pourpoint: string };
    Querystring: { day: string; period: string; predictor: Predictor; units: Units; f?: 'json' | 'csv' };
  }>(
    '/datasets/:dataset/forecast/:pourpoint/regression',
    {
      schema: {
        tags: ['stations'],
        summary:
          'Basin SWE (or station index) on a day of each water year against the season volume: OLS fit, r², residual spread, this year on the fit',
        params: {
          type: 'object',
          properties: { dataset: DATASET_PARAM, pourpoint: POURPOINT_PARAM },
          required: ['dataset', 'pourpoint'],
        },
        querystring: querySchema(['units', 'f'], {
          day: z.string().default('04-01').meta({ description: 'MM-DD' }),
          period,
          predictor: z.enum(PREDICTORS).default('basin'),
        }),
        response: {
          ...json('`{fit, years, this_year, published}`; CSV: the M4 table', true),
          ...problemResponses(400, 404, 409, 422),
        },
      },
    },
    async (req, reply) => {
      const { dataset, pourpoint } = req.params;
      const q = { dataset, pourpoint, season: parseSeason(req.query.period), units: req.query.units };
      if (negotiate(req.query.f, req.headers.accept) === 'csv') {
        const t = await admit(req, reply, (exec) =>
          m4Table(db, { ...q, days: [req.query.day], predictors: [req.query.predictor] }, exec),
        );
        return sendCsv(reply, `${file(pourpoint)}_m4.csv`, m4CsvLines(t));
      }
      return admit(req, reply, (exec) =>
        regression(db, { ...q, day: req.query.day, predictor: req.query.predictor }, exec),
      );
    },
  );
}
