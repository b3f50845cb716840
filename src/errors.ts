/**
 * The one error catalog: every domain error has a stable machine key, an HTTP status and a
 * title (for problem+json) and a CLI exit code. Shells map errors through this table only.
 */

/** Catalog entry: HTTP status, problem title, CLI exit code (1 = domain error, 2 = usage). */
export interface ErrorKind {
  readonly status: number;
  readonly title: string;
  readonly exit: 1 | 2;
}

export const ErrorCatalog = {
  'config-not-set': { status: 500, title: 'Database location not configured', exit: 1 },
  'database-not-found': { status: 500, title: 'Database not found', exit: 1 },
  'not-a-database': { status: 500, title: 'Not a snowdb database', exit: 1 },
  'invalid-config': { status: 500, title: 'Invalid configuration file', exit: 1 },
  'directory-not-empty': { status: 409, title: 'Directory is not empty', exit: 1 },
  'invalid-name': { status: 400, title: 'Invalid name', exit: 1 },
  'usage-error': { status: 400, title: 'Invalid usage', exit: 2 },
  'malformed-query-parameter': { status: 400, title: 'Malformed query parameter', exit: 1 },
  'invalid-query-parameter': { status: 422, title: 'Invalid query parameter', exit: 1 },
  'query-too-large': { status: 422, title: 'Query exceeds a size limit', exit: 1 },
  'no-reference-years': { status: 409, title: 'No reference years for normals', exit: 1 },
  'dataset-not-found': { status: 404, title: 'Dataset not found', exit: 1 },
  'pourpoint-not-found': { status: 404, title: 'Pourpoint not found', exit: 1 },
  'pourpoint-not-covered': { status: 409, title: 'Pourpoint not covered by dataset grid', exit: 1 },
  'invalid-pourpoint': { status: 422, title: 'Invalid pourpoint record', exit: 1 },
  'invalid-source': { status: 422, title: 'Invalid source file', exit: 1 },
  'source-not-found': { status: 404, title: 'Source not found', exit: 1 },
  'source-unreachable': { status: 502, title: 'Source unreachable', exit: 1 },
  'source-bad-answer': {
    status: 502,
    title: 'Source answered something that is not its documented format',
    exit: 1,
  },
  'station-not-found': { status: 404, title: 'Station not found', exit: 1 },
  'stations-not-synced': { status: 409, title: 'Stations not synced', exit: 1 },
  'source-rate-limited': { status: 503, title: 'Source rate limit exceeded', exit: 1 },
  'source-login-required': { status: 502, title: 'Source archive needs a login', exit: 1 },
  'prune-refused': { status: 409, title: 'Prune needs an archive directory', exit: 1 },
  'invalid-raster': { status: 500, title: 'Invalid or unsupported raster', exit: 1 },
  'invalid-series': { status: 500, title: 'Damaged series store (run dataset rebuild-series)', exit: 1 },
  'invalid-geometry': { status: 422, title: 'Invalid geometry', exit: 1 },
  'unsupported-crs': { status: 422, title: 'Unsupported coordinate reference system', exit: 1 },
  'zone-layer-missing': { status: 409, title: 'Zone layer not generated', exit: 1 },
  'date-not-found': { status: 404, title: 'Date not ingested', exit: 1 },
  'date-incomplete': { status: 409, title: 'Date is missing a variable', exit: 1 },
  'date-locked': { status: 503, title: 'Date locked by another ingest', exit: 1 },
  'queue-unreachable': { status: 503, title: 'Job queue (Redis) unreachable', exit: 1 },
  'queue-job-failed': { status: 500, title: 'Queued job failed on every attempt', exit: 1 },
  'invalid-queue-job': { status: 500, title: 'Malformed job on the queue', exit: 1 },
  'series-locked': { status: 503, title: 'Series store locked by another writer', exit: 1 },
  'basin-raster-missing': { status: 409, title: 'Basin AOI raster missing', exit: 1 },
  'invalid-path-parameter': { status: 422, title: 'Invalid path parameter', exit: 1 },
  'not-acceptable': { status: 406, title: 'Not acceptable', exit: 1 },
  'resource-not-found': { status: 404, title: 'Resource not found', exit: 1 },
  'problem-type-not-found': { status: 404, title: 'Problem type not found', exit: 1 },
  'service-busy': { status: 503, title: 'Service busy', exit: 1 },
  'query-timeout': { status: 503, title: 'Query timed out', exit: 1 },
  /** Logged, never received: the client left before its answer (nginx's 499). */
  'client-closed': { status: 499, title: 'Client closed the request', exit: 1 },
  'uri-too-long': { status: 414, title: 'URI too long', exit: 1 },
  'malformed-body': { status: 400, title: 'Malformed request body', exit: 1 },
  'body-too-large': { status: 413, title: 'Request body too large', exit: 1 },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type', exit: 1 },
  'headers-too-large': { status: 431, title: 'Request headers too large', exit: 1 },
  'request-timeout': { status: 408, title: 'Request not received in time', exit: 1 },
  'malformed-request': { status: 400, title: 'Malformed HTTP request', exit: 1 },
  'health-check-failed': { status: 500, title: 'Health check failed', exit: 1 },
  'read-only-database': { status: 405, title: 'Database is a read-only replica', exit: 1 },
  'storage-unreachable': { status: 503, title: 'Database storage unreachable', exit: 1 },
  'address-in-use': { status: 500, title: 'Address already in use', exit: 1 },
  'disk-full': { status: 507, title: 'No space left on the device', exit: 1 },
  'source-too-large': { status: 502, title: 'Upstream file larger than its format allows', exit: 1 },
  'update-stalled': { status: 409, title: 'Another update holds the lock too long', exit: 1 },
  'publish-interrupted': { status: 409, title: 'Database changed while publishing', exit: 1 },
} as const satisfies Record<string, ErrorKind>;

/** A stable machine key of the catalog, e.g. `dataset-not-found`. */
export type ErrorKey = keyof typeof ErrorCatalog;

/** A domain error: message for people, key for machines, optional extension members. */
export class SnowdbError extends Error {
  /** Marker that survives duplicated module copies (see `SnowdbError.is`). */
  readonly isSnowdbError = true;
  readonly key: ErrorKey;
  /** Extra problem+json members, e.g. `{ parameter: 'zone', allowed: [...] }`. */
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(key: ErrorKey, message: string, extra: Record<string, unknown> = {}, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SnowdbError';
    this.key = key;
    this.extra = extra;
  }

  get kind(): ErrorKind {
    return ErrorCatalog[this.key];
  }

  static is(e: unknown): e is SnowdbError {
    return typeof e === 'object' && e !== null && (e as { isSnowdbError?: unknown }).isSnowdbError === true;
  }
}

/** Raised for an invalid zone token, variable or query value (docs/reference.md#http-api). */
export class QueryParameterError extends SnowdbError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super('invalid-query-parameter', message, extra);
    this.name = 'QueryParameterError';
  }
}

/**
 * A system error an operator can act on, as a catalog error: a full disk or quota (ENOSPC,
 * EDQUOT) is `disk-full`, naming the file. Writes are staged and switched in whole, so what was
 * being written is left unused and the rest is as it was. Null for anything else.
 */
export function operatorError(e: unknown): SnowdbError | null {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return null;
  const path = (e as NodeJS.ErrnoException).path;
  return new SnowdbError(
    'disk-full',
    `no space left on the device${path ? ` writing ${path}` : ''} (${code}): free some space, then run the same command again (what was being written is not in use; the rest is as it was)`,
    {},
    { cause: e },
  );
}
