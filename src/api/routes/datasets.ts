import type { FastifyInstance } from 'fastify';
import { activeDatasets, type DatasetInfo, datasetInfo } from '../../app/datasets.js';
import { staticPrefix } from '../../app/publish-static.js';
import { freshnessOf } from '../../datasets/freshness.js';
import { openActiveDataset } from '../../datasets/registry.js';
import type { Database } from '../../db/database.js';
import { RemoteStore } from '../../io/remote-store.js';
import { waterYearCounts } from '../../stats/water-year.js';
import { todayUtc } from '../../util/dates.js';
import { baseOf, type Link, sendJson } from '../http.js';
import { DATASET_PARAM, jsonResponse, problemResponses } from '../schemas.js';

const STATS_QUERY = 'zone,variable,include_empty_zones,valid_fraction,f';

/** The templated stats links of a dataset; `triplet` binds the pourpoint (else it stays a variable). */
export function statsLinks(base: string, dataset: string, triplet?: string): Link[] {
  const pp = triplet ?? '{pourpoint}';
  const kinds = [
    ['stats-date-range', 'date-range', 'datetime', 'Date-range zonal statistics'],
    ['stats-doy', 'doy', 'month,day,start_year,end_year', 'Day-of-year zonal statistics'],
  ] as const;
  return kinds.map(([rel, path, params, title]) => ({
    href: `${base}/datasets/${dataset}/stats/${pp}/${path}{?${params},${STATS_QUERY}}`,
    rel,
    type: 'application/json',
    title: triplet === undefined ? title : `${dataset} ${title.toLowerCase()}`,
    templated: true,
    ...(triplet === undefined ? {} : { dataset }),
  }));
}

/** `/datasets` (active only) and `/datasets/{dataset}` (DatasetInfo). */
export async function datasetRoutes(app: FastifyInstance, db: Database): Promise<void> {
  app.get(
    '/datasets',
    {
      schema: {
        tags: ['datasets'],
        summary: 'Active datasets, sorted by name',
        response: jsonResponse('DatasetList', 'the active datasets'),
      },
    },
    async (req, reply) => {
      const b = baseOf(req);
      const datasets = (await activeDatasets(db, todayUtc())).map((d) => ({
        ...d,
        links: [{ href: `${b}/datasets/${d.name}`, rel: 'self', type: 'application/json' }],
      }));
      return sendJson(reply, {
        datasets,
        links: [
          { href: `${b}/datasets`, rel: 'self', type: 'application/json' },
          { href: `${b}/`, rel: 'root', type: 'application/json' },
        ],
      });
    },
  );
  app.get<{ Params: { dataset: string } }>(
    '/datasets/:dataset',
    {
      schema: {
        tags: ['datasets'],
        summary: 'One active dataset: grid, variables, zone axes, dates and templated stats links',
        params: { type: 'object', properties: { dataset: DATASET_PARAM }, required: ['dataset'] },
        response: { ...jsonResponse('DatasetInfo', 'the dataset'), ...problemResponses(404, 422) },
      },
    },
    async (req, reply) => {
      const d = await openActiveDataset(db, req.params.dataset);
      const info = await datasetInfo(db, d.name);
      const b = baseOf(req);
      // A replica links the static files published beside its tree (publish --static), when there are some.
      const staticIndex =
        db.store instanceof RemoteStore
          ? await db.store.besideUrl(`${staticPrefix(d.name)}index.json`)
          : null;
      return sendJson(reply, {
        name: d.name,
        description: info.description,
        template: info.template,
        grid: {
          crs: d.config.grid.crs,
          rows: d.grid.height,
          cols: d.grid.width,
          tile_size: d.grid.tileSize,
          is_geographic: d.grid.crs.geographic,
          bounds: info.grid.bounds,
        },
        variables: variablesOf(info.variables),
        zones: info.zones,
        freshness: freshnessOf(d.config, info.date_list, todayUtc()),
        dates: {
          count: info.dates,
          first: info.first_date,
          last: info.last_date,
          water_years: waterYearCounts(info.date_list),
        },
        links: [
          { href: `${b}/datasets/${d.name}`, rel: 'self', type: 'application/json' },
          { href: `${b}/`, rel: 'root', type: 'application/json' },
          { href: `${b}/datasets`, rel: 'collection', type: 'application/json' },
          ...statsLinks(b, d.name),
          ...(staticIndex === null
            ? []
            : [
                {
                  href: staticIndex,
                  rel: 'static-files',
                  type: 'application/json',
                  title: `${d.name} as static CSV and Parquet files (index.json)`,
                },
              ]),
          {
            href: `${b}/datasets/${d.name}/export{?datetime,format,basin,set,zone,variable,units,normals,normals_years}`,
            rel: 'export',
            type: 'application/vnd.apache.parquet',
            title: 'Every basin × zone cell × date of up to a water year, as Parquet or CSV',
            templated: true,
          },
        ],
      });
    },
  );
}

/**
 * One entry per variable, in the config's order: its first statistic's `stat_name`, `unit` and
 * `reducer` (the reference tool's members), and every statistic of it in `statistics`.
 */
function variablesOf(stats: DatasetInfo['variables']) {
  return [...new Set(stats.map((v) => v.variable))].map((key) => {
    const of = stats.filter((v) => v.variable === key);
    const statistics = of.map((v) => ({ stat_name: v.stat, unit: v.unit, reducer: v.reducer }));
    return { key, ...statistics[0]!, description: of[0]!.description, statistics };
  });
}
