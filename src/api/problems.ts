import { STATUS_CODES } from 'node:http';
import { ErrorCatalog, type ErrorKey, operatorError, SnowdbError } from '../errors.js';

export const PROBLEM_JSON = 'application/problem+json';

/** An RFC 9457 problem document; `type` resolves under `/problems/<key>`. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail?: string;
  readonly instance?: string;
  readonly [extension: string]: unknown;
}

export const problemTypeUri = (key: string) => `/problems/${key}`;

export function problemOfKey(key: ErrorKey, detail: string, extra: Record<string, unknown> = {}): Problem {
  const kind = ErrorCatalog[key];
  return { type: problemTypeUri(key), title: kind.title, status: kind.status, detail, ...extra };
}

/** What fastify attaches to a request that failed schema validation. */
interface ValidationFailure {
  readonly validation: readonly {
    instancePath: string;
    message?: string;
    params?: Record<string, unknown>;
  }[];
  readonly validationContext?: string;
}

const isValidation = (e: unknown): e is ValidationFailure =>
  typeof e === 'object' && e !== null && Array.isArray((e as { validation?: unknown }).validation);

/** The parameter a validation error is about: `/zone/0` → zone; a missing or unknown one → its name. */
function parameterOf(v: ValidationFailure['validation'][number]): string {
  const named = v.params?.missingProperty ?? v.params?.additionalProperty;
  if (typeof named === 'string') return named;
  return v.instancePath.split('/').filter(Boolean)[0] ?? '';
}

/** A validation error's message; an unknown parameter says so instead of ajv's wording. */
const messageOf = (v: ValidationFailure['validation'][number]): string =>
  typeof v.params?.additionalProperty === 'string'
    ? 'is not a parameter of this resource'
    : (v.message ?? 'invalid');

/**
 * The problem for anything a request handler threw: catalog errors as they are; schema failures
 * of the query as 400 `malformed-query-parameter` and of the path as 422
 * `invalid-path-parameter`, each naming the parameter; other client errors by their status;
 * anything else is a 500 that reveals nothing.
 */
export function problemOf(e: unknown): Problem {
  const known = SnowdbError.is(e) ? e : operatorError(e);
  if (known !== null) return problemOfKey(known.key, known.message, { ...known.extra });
  if (isValidation(e)) {
    const errors = e.validation.map((v) => ({ parameter: parameterOf(v), message: messageOf(v) }));
    const parameters = [...new Set(errors.map((x) => x.parameter))];
    const detail = errors.map((x) => `${x.parameter} ${x.message}`).join('; ');
    if (e.validationContext === 'body')
      return problemOfKey(
        'malformed-body',
        `the request body ${e.validation[0]?.message ?? 'is invalid'}: send GeoJSON as application/json`,
      );
    return e.validationContext === 'params'
      ? problemOfKey('invalid-path-parameter', detail, { parameter: parameters[0], errors })
      : problemOfKey('malformed-query-parameter', detail, { parameter: parameters[0], parameters, errors });
  }
  const framework = frameworkProblem(e);
  if (framework !== null) return framework;
  const status = (e as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return {
      type: 'about:blank',
      title: STATUS_CODES[status] ?? 'Bad request',
      status,
      detail: (e as Error).message,
    };
  }
  return { type: 'about:blank', title: 'Internal Server Error', status: 500 };
}

/** Fastify's own errors about a request body, by code, in the catalog's terms. */
const FRAMEWORK: Readonly<Record<string, (e: Error) => Problem>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () =>
    problemOfKey(
      'body-too-large',
      'the request body is larger than this resource takes (8 MiB for a polygon)',
    ),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    problemOfKey('unsupported-media-type', 'send the body as application/json (GeoJSON)'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => problemOfKey('malformed-body', 'the JSON body is empty'),
  // Fastify says no more than this: malformed JSON and a prototype key look alike to it.
  FST_ERR_CTP_INVALID_JSON_BODY: () =>
    problemOfKey(
      'malformed-body',
      'the body is not JSON, or it holds a __proto__ or constructor key (refused)',
    ),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    problemOfKey('malformed-body', 'the body is not as long as its Content-Length says'),
};

/** A body parser's error (Fastify's code, or secure-json-parse's prototype refusal), or null. */
function frameworkProblem(e: unknown): Problem | null {
  if (!(e instanceof Error)) return null;
  const code = (e as { code?: unknown }).code;
  const known = typeof code === 'string' ? FRAMEWORK[code] : undefined;
  if (known !== undefined) return known(e);
  if (/forbidden (prototype|constructor) property/i.test(e.message))
    return problemOfKey(
      'malformed-body',
      'the JSON body holds a __proto__ or constructor key, which is refused',
    );
  if (e instanceof SyntaxError && (e as { statusCode?: unknown }).statusCode === 400)
    return problemOfKey('malformed-body', `the body is not JSON (${e.message})`);
  return null;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A message fit for a client: every path under one of `roots` (the database, the temp dir)
 * becomes `<database>/…` relative to the first root, or `<path>` (the full message goes to the log).
 */
export function scrubPaths(text: string, roots: readonly string[]): string {
  let out = text;
  roots.forEach((root, i) => {
    const r = root.replace(/\/+$/, '');
    if (r === '') return;
    out = out.replace(
      new RegExp(`${escapeRegExp(r)}(/[^\\s'"\`:,;)]*)?`, 'g'),
      (_m, rest: string | undefined) => (i === 0 ? `<database>${rest ?? ''}` : '<path>'),
    );
  });
  return out;
}
