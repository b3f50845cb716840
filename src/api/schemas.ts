/**
 * JSON Schemas of the API's parameters and bodies, for validation and for the OpenAPI document.
 * Responses are sent pre-serialized, so these schemas document bodies without filtering them.
 */
import { ErrorCatalog } from '../errors.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;

export const Link = {
  $id: 'Link',
  type: 'object',
  required: ['href', 'rel'],
  properties: { href: str, rel: str, type: str, title: str, templated: { type: 'boolean' } },
  additionalProperties: true,
} as const;

const links = { type: 'array', items: { $ref: 'Link#' } } as const;

export const Problem = {
  $id: 'Problem',
  type: 'object',
  description: 'RFC 9457 problem details; `type` resolves under /problems/{key}',
  required: ['type', 'title', 'status'],
  properties: { type: str, title: str, status: int, detail: str, parameter: str },
  additionalProperties: true,
} as const;

const ZoneRef = {
  type: 'object',
  description:
    "band {layer, min, max, unit}, class {layer, code, label}, threshold {layer, threshold, unit, side, label}, or unclassified {layer}: the basin's pixels some axis leaves in no zone (one cell, last)",
  required: ['kind', 'layer'],
  properties: { kind: { enum: ['band', 'class', 'threshold', 'unclassified'] }, layer: str },
  additionalProperties: true,
} as const;

/** Notes beside a body: present only when there is something to say (no ingested date selected). */
const notes = {
  type: 'array',
  items: str,
  description:
    'what the user should know about the answer, e.g. that the dates hold no ingested date and which held dates are nearest before and after; absent when there is nothing to say',
  examples: [
    [
      "no date of 'snodas' is ingested in 2025-04-02; the nearest held: 2025-04-01 (before) and 2025-04-08 (after) (see 'snowdb dataset dates snodas')",
    ],
  ],
} as const;

export const CompactStatsResponse = {
  $id: 'CompactStatsResponse',
  type: 'object',
  required: ['zone_layers', 'variables', 'zones', 'results', 'pourpoint', 'dataset', 'query'],
  properties: {
    zone_layers: { type: 'array', items: str },
    variables: { type: 'array', items: str, description: 'stat names; the inner order of results' },
    zones: {
      type: 'array',
      items: {
        type: 'object',
        required: ['zone', 'area_m2'],
        properties: {
          zone: { type: 'array', items: ZoneRef },
          area_m2: { type: 'number', minimum: 0 },
          area_acres: {
            type: 'number',
            minimum: 0,
            description: 'with units=us: the area in acres (m² ÷ 4,046.8564224)',
          },
        },
      },
    },
    results: {
      type: 'object',
      description: 'date → [zone][variable] of number or null',
      additionalProperties: { type: 'array', items: { type: 'array', items: { type: ['number', 'null'] } } },
    },
    reference: { $ref: 'Reference#' },
    pourpoint: str,
    dataset: str,
    query: { type: 'object', additionalProperties: true },
    notes,
    links,
  },
} as const;

/** The reference water years behind normals. */
export const Reference = {
  $id: 'Reference',
  type: 'object',
  description: 'the reference water years behind normals columns',
  required: ['start_water_year', 'end_water_year', 'water_years', 'by_default', 'missing_water_years'],
  properties: {
    start_water_year: int,
    end_water_year: int,
    water_years: { type: 'array', items: int, description: 'the water years of the span with a date' },
    by_default: {
      type: 'boolean',
      description:
        "true when no years were asked: every water year before the current one (the newest date's), and the current one once it holds 30 September",
    },
    missing_water_years: {
      type: 'array',
      items: int,
      description: 'asked-for water years that hold no date (a note says so too)',
    },
    column_water_years: {
      type: 'object',
      description: 'per stat column, the water years that gave it at least one value',
      additionalProperties: { type: 'array', items: int },
      examples: [{ mean_swe_mm: [2021, 2022, 2023, 2024] }],
    },
  },
} as const;

const ZONES = CompactStatsResponse.properties.zones;
const RESULTS = CompactStatsResponse.properties.results;

export const AllBasinsStatsResponse = {
  $id: 'AllBasinsStatsResponse',
  type: 'object',
  required: ['zone_layers', 'variables', 'basins', 'dataset', 'query'],
  properties: {
    zone_layers: { type: 'array', items: str },
    variables: { type: 'array', items: str, description: 'stat names; the inner order of results' },
    basins: {
      type: 'array',
      description: 'every covered basin, sorted by triplet; each as its own stats answer',
      items: {
        type: 'object',
        required: ['pourpoint', 'zones', 'results'],
        properties: { pourpoint: str, zones: ZONES, results: RESULTS, reference: { $ref: 'Reference#' } },
      },
    },
    dataset: str,
    query: { type: 'object', additionalProperties: true },
    notes,
    links,
  },
} as const;

export const AllWaterYearsResponse = {
  $id: 'AllWaterYearsResponse',
  type: 'object',
  required: ['zone_layers', 'variables', 'variable', 'water_year', 'basins', 'dataset'],
  properties: {
    zone_layers: { type: 'array', items: str },
    variables: {
      type: 'array',
      items: str,
      description:
        'as water-years: `peak_<mean>`, `peak_date`, `melt_out_date`, `apr1_<mean>`, `peak_<total>`, `apr1_<total>`, `dates`; with normals `median_peak_<mean>`, `pct_median_peak_<mean>`, `median_peak_day`, `median_melt_out_day`, `melted_since_peak_pct`, `reference_years`',
    },
    variable: str,
    water_year: int,
    reference: { $ref: 'Reference#' },
    basins: {
      type: 'array',
      description: 'every covered basin, sorted by triplet; each as its own water-years answer for the year',
      items: {
        type: 'object',
        required: ['pourpoint', 'zones', 'results'],
        properties: { pourpoint: str, zones: ZONES, results: { type: 'object', additionalProperties: true } },
      },
    },
    dataset: str,
    notes,
    links,
  },
  additionalProperties: true,
} as const;

/** A one-basin table's members: zone axes, column names, zones, `extra`, then rows by key. */
const basinTable = <E extends object>(
  variables: string,
  results: string,
  cell: readonly string[],
  extra: E,
) =>
  ({
    zone_layers: { type: 'array', items: str },
    variables: { type: 'array', items: str, description: variables },
    zones: ZONES,
    ...extra,
    results: {
      type: 'object',
      description: results,
      additionalProperties: { type: 'array', items: { type: 'array', items: { type: cell } } },
    },
    pourpoint: str,
    dataset: str,
    notes,
    links,
  }) as const;

export const NormalsResponse = {
  $id: 'NormalsResponse',
  type: 'object',
  required: ['zone_layers', 'variables', 'zones', 'reference', 'results', 'pourpoint', 'dataset'],
  properties: {
    ...basinTable(
      '`<statistic>_<stat name>` for statistic median, mean, p10, p90, min, max, years; the inner order of results',
      'day of the water year (MM-DD, 10-01 … 09-30, 02-29 held by leap years) → [zone][variable]',
      ['number', 'null'],
      { reference: { $ref: 'Reference#' } },
    ),
  },
} as const;

export const WaterYearsResponse = {
  $id: 'WaterYearsResponse',
  type: 'object',
  required: ['zone_layers', 'variables', 'zones', 'variable', 'results', 'pourpoint', 'dataset'],
  properties: {
    ...basinTable(
      '`peak_<mean>`, `peak_date`, `melt_out_date`, `apr1_<mean>`, `peak_<total>`, `apr1_<total>`, `dates`',
      'water year → [zone][variable] of number, ISO date or null',
      ['number', 'string', 'null'],
      { variable: str },
    ),
  },
  additionalProperties: true,
} as const;

export const CompareResponse = {
  $id: 'CompareResponse',
  type: 'object',
  required: ['pourpoint', 'polygon_area_m2', 'datasets'],
  properties: {
    pourpoint: str,
    polygon_area_m2: { type: 'number', description: "the basin polygon's geodesic area" },
    datasets: {
      type: 'array',
      description:
        "per dataset, in the order asked: `dataset`, `basin_area_m2` (the basin's area on its grid), `area_vs_polygon_percent`, and its compact stats body (`zone_layers`, `variables`, `zones`, `results`) as its own stats answer",
      items: { type: 'object', additionalProperties: true },
    },
    links,
  },
  additionalProperties: true,
} as const;

export const ChangesResponse = {
  $id: 'ChangesResponse',
  type: 'object',
  required: ['zone_layers', 'variables', 'zones', 'variable', 'results'],
  properties: {
    ...basinTable(
      'per kind (`<mean>`, then `<total>`): the value, `change_1d_<c>`, `change_7d_<c>`, `gain_<c>`, `melt_<c>` and, with precipitation, `wytd_<kind>_precip_<unit>`; with normals, `median_<m>` and `pct_median_<m>` of each cumulative one (gain, melt, precipitation) and `reference`',
      'date → [zone][variable] of number or null',
      ['number', 'null'],
      { variable: str },
    ),
  },
  additionalProperties: true,
} as const;

export const SnowlineResponse = {
  $id: 'SnowlineResponse',
  type: 'object',
  required: [
    'pourpoint',
    'dataset',
    'query',
    'threshold',
    'threshold_unit',
    'band_step_ft',
    'results',
    'rows',
  ],
  properties: {
    ...basinTable(
      "`rows`' columns: `snowline_ft`, `snowline_m`, `crossing` (found, all_above, all_below, from_above_only, gap, no_data), the lower and upper bands' bounds (ft), means and areas (m²), `span_ft`",
      'replaced below by the reference tool’s results',
      ['number', 'string', 'null'],
      {
        query: { type: 'object', additionalProperties: true },
        variable: str,
        threshold: {
          type: 'number',
          description: "the value the line marks, in `threshold_unit` (the variable's mean unit)",
        },
        threshold_unit: str,
        band_step_ft: int,
      },
    ),
    results: {
      type: 'object',
      description:
        'as the reference tool answers it: date → the line, or null when no pair of bands crosses the threshold',
      additionalProperties: {
        type: ['object', 'null'],
        properties: {
          elevation_ft: { type: 'number' },
          lower_band_area_m2: { type: 'number' },
          higher_band_area_m2: { type: 'number' },
          interpolation_span_ft: { type: 'number' },
        },
      },
    },
    rows: {
      type: 'object',
      description:
        'snowdb: date → one row (the basin) of number, text or null, columns as `variables` names them',
      additionalProperties: {
        type: 'array',
        items: { type: 'array', items: { type: ['number', 'string', 'null'] } },
      },
    },
  },
  additionalProperties: true,
} as const;

/** How old the newest date is (`/datasets` items, `/datasets/{d}` `freshness`). */
const freshness = {
  newest_date: { type: ['string', 'null'], description: 'the newest ingested date' },
  age_days: { type: ['integer', 'null'], description: 'whole days from the newest date to today (UTC)' },
  usual_lag_days: {
    type: ['integer', 'null'],
    description:
      "days the newest date usually trails today (the config's, else the template's; null: never late)",
  },
  late: { type: 'boolean', description: 'the newest date is older than usual (or there is none)' },
} as const;

export const DatasetInfo = {
  $id: 'DatasetInfo',
  type: 'object',
  required: ['name', 'grid', 'variables', 'zones'],
  properties: {
    name: str,
    freshness: { type: 'object', properties: freshness },
    description: str,
    grid: {
      type: 'object',
      properties: { crs: str, rows: int, cols: int, tile_size: int, is_geographic: { type: 'boolean' } },
    },
    variables: {
      type: 'array',
      description: "one per variable: its first statistic's stat_name, unit and reducer, and every statistic",
      items: {
        type: 'object',
        properties: {
          key: str,
          stat_name: str,
          unit: str,
          reducer: str,
          description: str,
          statistics: {
            type: 'array',
            items: { type: 'object', properties: { stat_name: str, unit: str, reducer: str } },
          },
        },
      },
    },
    zones: { type: 'array', items: { type: 'object', additionalProperties: true } },
    dates: {
      type: 'object',
      properties: {
        count: int,
        first: str,
        last: str,
        water_years: {
          type: 'array',
          description:
            'per water year with dates (1 Oct – 30 Sep, named by its end): date count, whether every day',
          items: {
            type: 'object',
            properties: { water_year: int, dates: int, complete: { type: 'boolean' } },
          },
        },
      },
    },
    links,
  },
} as const;

export const FeatureCollection = {
  $id: 'FeatureCollection',
  type: 'object',
  required: ['type', 'features'],
  properties: {
    type: { const: 'FeatureCollection' },
    features: { type: 'array', items: { type: 'object', additionalProperties: true } },
    numberMatched: int,
    numberReturned: int,
    links,
  },
} as const;

export const VersionResponse = {
  $id: 'VersionResponse',
  type: 'object',
  required: ['version'],
  properties: { version: { ...str, examples: ['0.1.0'] }, links },
} as const;

const count = { type: 'integer', minimum: 0 } as const;

export const StatusResponse = {
  $id: 'StatusResponse',
  type: 'object',
  required: ['uptime_s', 'caches', 'workers'],
  properties: {
    uptime_s: { type: 'number', description: 'seconds since this process started' },
    caches: {
      type: 'array',
      description:
        "this process's caches by name: what each holds and how it has served (sizes: SNOWDB_CACHE_MB)",
      items: {
        type: 'object',
        required: ['name', 'what', 'entries', 'bytes', 'max_bytes', 'hits', 'misses', 'hit_rate'],
        properties: {
          name: { ...str, examples: ['series-blocks'] },
          what: str,
          entries: count,
          bytes: { ...count, description: 'counted bytes held' },
          max_bytes: { ...count, description: 'the budget' },
          hits: count,
          misses: count,
          hit_rate: { type: ['number', 'null'], description: 'hits ÷ (hits + misses); null before any ask' },
        },
      },
    },
    workers: {
      type: 'object',
      description:
        "this process's compute worker threads (series scans, drawn polygons; at most SNOWDB_THREADS) and the jobs they ran",
      required: ['size', 'threads', 'idle', 'waiting', 'jobs', 'failed'],
      properties: {
        size: { ...count, description: 'threads it may run' },
        threads: { ...count, description: 'threads running now, busy or idle' },
        idle: count,
        waiting: { ...count, description: 'jobs waiting for a thread' },
        jobs: { ...count, description: 'jobs answered' },
        failed: { ...count, description: 'jobs that failed or were abandoned' },
      },
    },
    links,
  },
} as const;

export const ProblemTypes = {
  $id: 'ProblemTypes',
  type: 'object',
  description: 'every problem type of the error catalog, by key (each as /problems/{key} gives it)',
  additionalProperties: { type: 'object', additionalProperties: true },
} as const;

export const DatasetList = {
  $id: 'DatasetList',
  type: 'object',
  required: ['datasets'],
  properties: {
    datasets: {
      type: 'array',
      description: 'the active datasets, sorted by name',
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: str,
          ...freshness,
          links,
        },
        additionalProperties: true,
      },
    },
    links,
  },
} as const;

export const LandingPage = {
  $id: 'LandingPage',
  type: 'object',
  properties: { title: str, description: str, links },
} as const;

export const SHARED_SCHEMAS = [
  Link,
  LandingPage,
  VersionResponse,
  StatusResponse,
  ProblemTypes,
  DatasetList,
  Problem,
  Reference,
  CompactStatsResponse,
  AllBasinsStatsResponse,
  AllWaterYearsResponse,
  NormalsResponse,
  WaterYearsResponse,
  SnowlineResponse,
  ChangesResponse,
  CompareResponse,
  DatasetInfo,
  FeatureCollection,
];

/** Error responses every route may give, documented once. */
export const problemResponses = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [
      s,
      {
        description: Object.values(ErrorCatalog)
          .filter((k) => k.status === s)
          .map((k) => k.title)
          .join('; '),
        content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
      },
    ]),
  );

export const jsonResponse = (ref: string, description: string) => ({
  200: { description, content: { 'application/json': { schema: { $ref: `${ref}#` } } } },
});

export const DATASET_PARAM = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$' } as const;
export const POURPOINT_PARAM = {
  type: 'string',
  pattern: '^([a-zA-Z0-9-]+:[a-zA-Z]{2}:[a-zA-Z]+|[a-z][a-z0-9-]{0,31}:[a-zA-Z0-9-]{1,64})$',
  description:
    'basin id: a station triplet `<station>:<state>:<network>` (`09406000:UT:USGS`) or an imported set member `<set>:<id>` (`huc12:140700010101`)',
  examples: ['09406000:UT:USGS'],
} as const;

export { int, str };

/** The responses of a stats-like route: its JSON schema or a CSV table (200), then its problems. */
/** What a small answer looks like (the demo's North Creek, two elevation bands, one date). */
const EXAMPLES: Record<string, { json: object; csv: string }> = {
  CompactStatsResponse: {
    json: {
      zone_layers: ['terrain.elevation'],
      variables: ['mean_swe_mm', 'total_swe_m3'],
      zones: [
        {
          zone: [{ kind: 'band', layer: 'terrain.elevation', min: 7000, max: 8000, unit: 'ft' }],
          area_m2: 33925000.5,
        },
        {
          zone: [{ kind: 'band', layer: 'terrain.elevation', min: 8000, max: 9000, unit: 'ft' }],
          area_m2: 7291000.25,
        },
      ],
      results: {
        '2025-04-01': [
          [384.2, 13034000.1],
          [511.7, 3730800.9],
        ],
      },
      pourpoint: 'NORTHCK:UT:DEMO',
      dataset: 'snodas',
      query: { type: 'DateRange', start_date: '2025-04-01', end_date: '2025-04-01' },
      links: [
        {
          href: 'http://127.0.0.1:8000/datasets/snodas/stats/NORTHCK:UT:DEMO/date-range?datetime=2025-04-01',
          rel: 'self',
          type: 'application/json',
        },
      ],
    },
    csv: 'date,terrain.elevation_min_ft,terrain.elevation_max_ft,area_m2,mean_swe_mm,total_swe_m3\r\n2025-04-01,7000,8000,33925000.5,384.2,13034000.1\r\n2025-04-01,8000,9000,7291000.25,511.7,3730800.9\r\n',
  },
};

export const tableResponses = (ref: string, description: string) => ({
  200: {
    description,
    content: {
      'application/json': {
        schema: { $ref: `${ref}#` },
        ...(EXAMPLES[ref] && { example: EXAMPLES[ref].json }),
      },
      'text/csv': { schema: { type: 'string' }, ...(EXAMPLES[ref] && { example: EXAMPLES[ref].csv }) },
    },
  },
  ...problemResponses(400, 404, 406, 409, 422, 503),
});
