import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Database } from '../../db/database.js';
import { readGroups } from '../../pourpoints/groups.js';
import { computeBasinIndex } from '../../stats/basin-index.js';
import { parseDateRange } from '../../stats/dates.js';
import { httpNames, querySchema, statsOptions } from '../../stats/query.js';
import { queryCaps } from '../http.js';
import { admitJson } from '../json-stream.js';
import { DATASET_PARAM, problemResponses } from '../schemas.js';
import { statsLinks } from '../tables.js';

const anyJson = (description: string) => ({
  200: {
    description,
    content: { 'application/json': { schema: { type: 'object', additionalProperties: true } } },
  },
});

/** Named groups of basins, and a group's basin index. */
export async function groupRoutes(app: FastifyInstance, db: Database): Promise<void> {
  app.get(
    '/groups',
    {
      schema: {
        tags: ['pourpoints'],
        summary: 'Named groups of basins: each answers as a basin at group:<name>',
        response: anyJson('`{groups: [{id, members}]}`'),
      },
    },
    async () => {
      const groups = await readGroups(db);
      return {
        groups: Object.entries(groups)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([name, g]) => ({ id: `group:${name}`, members: g.members })),
      };
    },
  );
  app.get<{
    Params: { dataset: string; group: string };
    Querystring: { datetime: string; variable: string; normals_years?: string };
  }>(
    '/datasets/:dataset/groups/:group/basin-index',
    {
      schema: {
        tags: ['stats'],
        summary:
          "A group's NRCS basin index per date: 100 × Σ members' current mean ÷ Σ their medians on that day (members with both)",
        params: {
          type: 'object',
          properties: {
            dataset: DATASET_PARAM,
            group: { type: 'string', pattern: '^[a-z][a-z0-9-]{0,31}$' },
          },
          required: ['dataset', 'group'],
        },
        querystring: querySchema(['normals_years'], {
          datetime: z
            .string()
            .meta({ description: 'start/end, ISO dates, inclusive', examples: ['2025-04-01'] }),
          variable: z.string().default('swe').meta({ description: 'one variable' }),
        }),
        response: {
          ...anyJson('`{group, members, variable, variables, results: {date: [...]}}`'),
          ...problemResponses(404, 409, 422),
        },
      },
    },
    async (req, reply) => {
      const { dataset, group } = req.params;
      const { normals } = statsOptions({ normals: true, normals_years: req.query.normals_years }, httpNames);
      const q = {
        dataset,
        group: `group:${group}`,
        dates: parseDateRange(req.query.datetime),
        variable: req.query.variable,
        normals,
        ...queryCaps(req),
      };
      return admitJson(req, reply, async (exec) => ({
        dataset,
        ...(await computeBasinIndex(db, q, exec)),
        links: statsLinks(req),
      }));
    },
  );
}
