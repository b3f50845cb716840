/**
 * The query model of the table answers (stats, stats-all, normals, water-years): every shared
 * parameter once, by its HTTP name, as a zod schema. The HTTP routes' query schemas (and so the
 * OpenAPI document) are generated from it (`querySchema`); the CLI maps its flags onto the same
 * names; `statsOptions`, `normalsOptions` and `waterYearsOptions` turn parameters into the
 * engine's options and raise every parameter error, naming the parameter as the caller spells it
 * (`normals_years`, or `--normals-years`). Dates stay with each route: their forms differ (a range, a day of year).
 */
import { z } from 'zod';
import { SnowdbError } from '../errors.js';
import { parseYearSpan } from './dates.js';
import type { NormalsOption } from './plan.js';
import { UNITS } from './units.js';

const REFERENCE_YEARS =
  'reference water years (default: every water year before the current one; a year counts for a day when it holds that day)';

/** Years as `Y1..Y2` or one year. */
const yearSpan = (description: string) =>
  z
    .string()
    .regex(/^[0-9]{4}(\.\.[0-9]{4})?$/)
    .optional()
    .meta({ description, examples: ['1991..2020'] });

/** Every shared parameter, by its HTTP name. */
export const PARAMS = {
  zone: z
    .array(z.string())
    .optional()
    .meta({
      description:
        'zone token `LAYER` or `LAYER:PARAM=VALUE`, e.g. `terrain.elevation:band_step_ft=500`; repeat per axis (the first is outermost)',
      examples: [['terrain.elevation'], ['terrain.elevation:band_step_ft=500', 'terrain.aspect']],
    }),
  variable: z.array(z.string()).optional().meta({ description: 'variable key; repeatable; absent = all' }),
  include_empty_zones: z.boolean().default(false),
  allow_partial: z.boolean().default(false).meta({
    description:
      "accepted as the reference tool's clients send it; snowdb answers a partly covered basin either way (over its part on the grid; `coverage` says which)",
  }),
  valid_fraction: z.boolean().default(false).meta({ description: 'add `valid_fraction_<variable>`' }),
  units: z.enum(UNITS).default('metric').meta({
    description: 'us: depths and precipitation in inches, volumes in acre-feet, temperatures in °F',
  }),
  f: z.enum(['json', 'csv']).optional().meta({ description: 'format; wins over Accept' }),
  normals: z.boolean().default(false).meta({
    description:
      'add `median_<stat>`, `pct_median_<stat>`, `rank_<stat>`, `rank_of_<stat>` against day-of-year normals',
  }),
  normals_years: yearSpan(REFERENCE_YEARS),
  years: yearSpan('water years (default: every water year with a date)'),
  melt_out_below: z
    .number()
    .min(0)
    .max(100_000)
    .optional()
    .meta({ description: "melt-out threshold in the mean's unit (default 1 mm, 0.04 in)" }),
};
type Params = typeof PARAMS;
export type Param = keyof Params;
/** Parameter values as the shells hand them over (any subset; absent = the default). */
export type QueryParams = { -readonly [K in Param]?: z.input<Params[K]> };

/** The cell parameters (zone axes, variables, empty zones, valid fraction, units, format). */
export const CELL_PARAMS = [
  'allow_partial',
  'zone',
  'variable',
  'include_empty_zones',
  'valid_fraction',
  'units',
  'f',
] as const;
/** The normals parameters of the stats answers. */
export const NORMALS_PARAMS = ['normals', 'normals_years'] as const;

/**
 * The JSON schema of a route's query: `extra` (route-local parameters: its dates, or one of the
 * model's in another form), then the named parameters of the model, no others.
 */
export function querySchema(
  names: readonly Param[],
  extra: Record<string, z.ZodType> = {},
): Record<string, unknown> {
  const shape: Record<string, z.ZodType> = { ...extra };
  for (const n of names) {
    if (n in extra) throw new Error(`querySchema: '${n}' given twice`);
    shape[n] = PARAMS[n];
  }
  const { $schema: _, ...schema } = z.toJSONSchema(z.strictObject(shape), {
    target: 'draft-7',
    io: 'input',
  });
  return schema;
}

/** How a shell spells a parameter in its messages. */
export type Spelling = (p: Param) => string;
/** The HTTP API's names. */
export const httpNames: Spelling = (p) => p;
/** The CLI's flags (`--with-normals` for `normals`, else `--` and the name with dashes). */
export const cliFlags: Spelling = (p) => (p === 'normals' ? '--with-normals' : `--${p.replaceAll('_', '-')}`);

const MODEL = z.object(PARAMS);
/** Parameters checked, defaults filled. */
type Checked = z.output<typeof MODEL>;

/**
 * Check parameters against the model (the HTTP routes' schemas did so already; the CLI's flags
 * not): the first problem is the error.
 * @throws SnowdbError `malformed-query-parameter` naming the parameter as `spell` writes it.
 */
export function checkParams(raw: QueryParams, spell: Spelling): Checked {
  const r = MODEL.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  const name = spell(String(issue.path[0]) as Param);
  throw new SnowdbError('malformed-query-parameter', `${name}: ${issue.message}`, { parameter: name });
}

/** The cell options of the engine's queries. */
const cellsOf = (p: Checked) => ({
  zones: p.zone ?? [],
  variables: p.variable ?? [],
  includeEmptyZones: p.include_empty_zones,
  validFraction: p.valid_fraction,
  units: p.units,
});

/** A year-span parameter (`normals_years`, `years`), when given. */
const yearsOf = (p: Checked, name: 'normals_years' | 'years', spell: Spelling) => {
  const v = p[name];
  return v === undefined ? undefined : parseYearSpan(v, spell(name));
};

/**
 * A stats answer's options (stats, stats-all): its cells and, with `normals`, the normals option.
 * @throws SnowdbError `malformed-query-parameter` for any malformed parameter, and for reference
 *   years without normals.
 */
export function statsOptions(raw: QueryParams, spell: Spelling) {
  const p = checkParams(raw, spell);
  if (p.normals_years !== undefined && !p.normals)
    throw new SnowdbError(
      'malformed-query-parameter',
      `${spell('normals_years')} goes with ${spell('normals')}${spell === httpNames ? '=true' : ''}`,
      { parameter: spell('normals_years') },
    );
  const normals: NormalsOption | undefined = p.normals
    ? { years: yearsOf(p, 'normals_years', spell) }
    : undefined;
  return { ...cellsOf(p), normals };
}

/** A normals answer's options: its cells and reference years. */
export function normalsOptions(raw: QueryParams, spell: Spelling) {
  const p = checkParams(raw, spell);
  return { ...cellsOf(p), years: yearsOf(p, 'normals_years', spell) };
}

/** A water-years answer's options: its cells (no variable list), years, melt-out threshold and normals. */
export function waterYearsOptions(raw: QueryParams, spell: Spelling) {
  const { normals } = statsOptions(raw, spell);
  const p = checkParams(raw, spell);
  return {
    ...cellsOf({ ...p, variable: undefined }),
    years: yearsOf(p, 'years', spell),
    meltOutBelow: p.melt_out_below,
    normals,
  };
}
