/**
 * The NRCS Air and Water Database (AWDB) REST API, version 1: its four endpoints (`stations`,
 * `data`, `forecasts`, `reference-data`), their documented JSON shapes checked on arrival, one
 * request at a time at most every `minIntervalMs`, retried with backoff on a network failure, a
 * 5xx, a 429 (waiting its Retry-After) or a body that breaks off. Nothing else in snowdb talks
 * to AWDB. Shapes: https://wcc.sc.egov.usda.gov/awdbRestApi/swagger-ui/index.html
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { SnowdbError } from '../errors.js';
import { BodyError, type Bounds, fetchBounded } from '../io/bounded.js';
import { JsonArrayError, JsonArraySplitter } from '../io/json-array.js';

/** The public AWDB REST API (SNOWDB_AWDB_URL overrides it). */
export const AWDB_URL = 'https://wcc.sc.egov.usda.gov/awdbRestApi';

export interface AwdbSettings {
  /** Base URL, without `/services/v1`. */
  readonly url: string;
  /** Attempts after the first. */
  readonly retries: number;
  /** First backoff, ms; doubled per attempt. */
  readonly backoffMs: number;
  /** Least time between two requests' starts, ms (AWDB asks clients to be gentle). */
  readonly minIntervalMs: number;
  /** Each answer's size and time bounds (a larger one is refused, never retried). */
  readonly bounds: Bounds;
}

/** Longest Retry-After honoured, s: a longer one fails the sync with the server's words. */
const MAX_RETRY_AFTER_S = 300;

const num = z.number().nullish();
const str = z.string().nullish();

/** `GET /stations`: one station's metadata (elevation in feet, lon/lat WGS 84 degrees). */
const StationDto = z.object({
  stationTriplet: z.string(),
  stationId: str,
  stateCode: str,
  networkCode: z.string(),
  name: str,
  dcoCode: str,
  countyName: str,
  huc: str,
  elevation: num,
  latitude: z.number(),
  longitude: z.number(),
  dataTimeZone: num,
  beginDate: str,
  endDate: str,
  forecastPoint: z
    .object({ name: str, forecaster: str, exceedenceProbabilities: z.array(z.number()).nullish() })
    .nullish(),
});
export type AwdbStation = z.infer<typeof StationDto>;

/** One value of `GET /data`: `date` for DAILY, `year`/`month`(/`monthPart`, `collectionDate`) otherwise. */
const DataValue = z.object({
  date: str,
  year: num,
  month: num,
  monthPart: str,
  collectionDate: str,
  value: num,
  qcFlag: str,
  qaFlag: str,
  median: num,
  average: num,
});

const StationData = z.object({
  stationTriplet: z.string(),
  data: z.array(
    z.object({
      stationElement: z.object({
        elementCode: z.string(),
        ordinal: num,
        heightDepth: num,
        durationName: str,
        storedUnitCode: str,
        beginDate: str,
        endDate: str,
      }),
      values: z.array(DataValue),
    }),
  ),
});
export type AwdbStationData = z.infer<typeof StationData>;

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
/** A field `z.number().nullish()` / `z.string().nullish()` accepts. */
const numOr = (v: unknown) => v === undefined || v === null || typeof v === 'number';
const strOr = (v: unknown) => v === undefined || v === null || typeof v === 'string';
const VALUE_NUMS = ['year', 'month', 'value', 'median', 'average'] as const;
const VALUE_STRS = ['date', 'monthPart', 'collectionDate', 'qcFlag', 'qaFlag'] as const;
const ELEMENT_NUMS = ['ordinal', 'heightDepth'] as const;
const ELEMENT_STRS = ['durationName', 'storedUnitCode', 'beginDate', 'endDate'] as const;

/**
 * One station of `GET /data`'s answer checked without zod (tens of thousands of values a
 * request; zod took ~10× as long: 1.3 s against ~0.1 s for the demo's sync): true only when
 * `StationData` would accept it. Readers take fields by name, so keys zod would strip do no harm.
 * On false, zod parses it and names the first problem.
 */
function plainStationData(s: unknown): s is AwdbStationData {
  if (!isObj(s) || typeof s.stationTriplet !== 'string' || !Array.isArray(s.data)) return false;
  for (const d of s.data) {
    if (!isObj(d) || !Array.isArray(d.values)) return false;
    const e = d.stationElement;
    if (!isObj(e) || typeof e.elementCode !== 'string') return false;
    for (const k of ELEMENT_NUMS) if (!numOr(e[k])) return false;
    for (const k of ELEMENT_STRS) if (!strOr(e[k])) return false;
    for (const v of d.values) {
      if (!isObj(v)) return false;
      for (const k of VALUE_NUMS) if (!numOr(v[k])) return false;
      for (const k of VALUE_STRS) if (!strOr(v[k])) return false;
    }
  }
  return true;
}

/** How a 200 answer's body becomes a value: one JSON document, or a JSON array read element by element. */
type Shape<T> =
  | { readonly whole: z.ZodType<T> }
  | {
      readonly each: z.ZodType<T extends readonly (infer E)[] ? E : never>;
      readonly plain?: (j: unknown) => boolean;
    };

/** An answer whose JSON is not the documented shape (never retried). */
class ShapeError extends Error {}

/** `GET /forecasts`: a forecast point's published forecasts (values by exceedance probability, %). */
const ForecastSet = z.object({
  stationTriplet: z.string(),
  forecastPointName: str,
  data: z.array(
    z.object({
      elementCode: z.string(),
      forecastPeriod: z.array(z.string()).min(2),
      forecastStatus: str,
      issueDate: str,
      periodNormal: num,
      publicationDate: z.string(),
      unitCode: str,
      forecastValues: z.record(z.string(), z.number().nullable()),
    }),
  ),
});

/** `GET /reference-data`: the code lists asked for (`elements`, `forecastPeriods`, …). */
const ReferenceData = z.record(z.string(), z.array(z.record(z.string(), z.unknown())));

/** AWDB durations snowdb asks for. */
export type Duration = 'DAILY' | 'SEMIMONTHLY' | 'MONTHLY';

export interface DataQuery {
  readonly triplets: readonly string[];
  readonly elements: readonly string[];
  readonly duration: Duration;
  /** ISO dates, inclusive. */
  readonly begin: string;
  readonly end: string;
  /** Ask for AWDB's published 1991–2020 median of each value's day. */
  readonly median?: boolean;
}

/** A client of one AWDB base URL; `requests` counts the HTTP requests it made (retries included). */
export class AwdbClient {
  requests = 0;
  private last = 0;

  constructor(
    readonly settings: AwdbSettings,
    private readonly pause: (ms: number) => Promise<unknown> = sleep,
  ) {}

  /** Station metadata for triplet patterns (`*:*:SNTL`, `1098:UT:SNTL`). */
  stations(triplets: readonly string[], forecastPoints = false): Promise<AwdbStation[]> {
    return this.get<AwdbStation[]>(
      'stations',
      {
        stationTriplets: triplets.join(','),
        activeOnly: 'false',
        ...(forecastPoints && { returnForecastPointMetadata: 'true' }),
      },
      { each: StationDto },
    );
  }

  /** Element values of stations over a date range. */
  data(q: DataQuery): Promise<AwdbStationData[]> {
    return this.get<AwdbStationData[]>(
      'data',
      {
        stationTriplets: q.triplets.join(','),
        elements: q.elements.join(','),
        duration: q.duration,
        beginDate: q.begin,
        endDate: q.end,
        periodRef: 'END',
        returnFlags: 'true',
        ...(q.median && { centralTendencyType: 'MEDIAN' }),
      },
      { each: StationData, plain: plainStationData },
    );
  }

  /** Published forecasts of forecast points, by publication date. */
  forecasts(triplets: readonly string[], elements: readonly string[], begin: string, end: string) {
    return this.get<z.infer<typeof ForecastSet>[]>(
      'forecasts',
      {
        stationTriplets: triplets.join(','),
        elementCodes: elements.join(','),
        beginPublicationDate: begin,
        endPublicationDate: end,
      },
      { each: ForecastSet },
    );
  }

  /** Code lists (`elements`, `forecastPeriods`, `units`, …). */
  referenceData(lists: readonly string[]) {
    return this.get('reference-data', { referenceLists: lists.join(',') }, { whole: ReferenceData });
  }

  /**
   * GET `services/v1/<endpoint>?<query>` as JSON of `shape`: an array's elements checked as
   * they arrive, so a large answer is never one text and a bad element ends the read at once.
   * @throws SnowdbError `source-unreachable` (network, a 4xx, 5xx or 429 past the retries),
   *   `source-bad-answer` (a body that is not the documented JSON, every attempt).
   */
  private async get<T>(endpoint: string, query: Record<string, string>, shape: Shape<T>): Promise<T> {
    const url = `${this.settings.url}/services/v1/${endpoint}?${new URLSearchParams(query)}`;
    let failure: SnowdbError | null = null;
    for (let attempt = 0; attempt <= this.settings.retries; attempt++) {
      const wait = attempt === 0 ? 0 : this.backoff(attempt, failure);
      if (wait > 0) await this.pause(wait);
      const gap = this.last + this.settings.minIntervalMs - Date.now();
      if (gap > 0) await this.pause(gap);
      this.last = Date.now();
      this.requests++;
      const r = await this.once(url, shape);
      if (r.ok) return r.value;
      failure = r.error;
      if (!r.retry) break;
    }
    throw failure!;
  }

  /** The wait before attempt `n` (1-based), ms: the 429's Retry-After, else doubling backoff. */
  private backoff(n: number, e: SnowdbError | null): number {
    const after = e?.extra.retryAfterS;
    if (typeof after === 'number') return after * 1000;
    return this.settings.backoffMs * 2 ** (n - 1);
  }

  private async once<T>(
    url: string,
    shape: Shape<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; retry: boolean; error: SnowdbError }> {
    const fail = (
      retry: boolean,
      key: 'source-unreachable' | 'source-bad-answer',
      msg: string,
      extra = {},
    ) => ({
      ok: false as const,
      retry,
      error: new SnowdbError(key, `AWDB ${msg}`, { url, ...extra }),
    });
    /** A bounded read's failure as this attempt's (its own retry rule); anything else is thrown. */
    const bodyFailed = (e: unknown) => {
      if (!(e instanceof BodyError)) throw e;
      return { ok: false as const, retry: e.retry, error: e };
    };
    let got: Awaited<ReturnType<typeof fetchBounded>>;
    try {
      got = await fetchBounded(
        'AWDB',
        url,
        { headers: { accept: 'application/json' } },
        this.settings.bounds,
      );
    } catch (e) {
      return bodyFailed(e);
    }
    const res = got.res;
    if (res.status === 429 || !res.ok) {
      let text = '';
      try {
        text = new TextDecoder().decode(await got.read());
      } catch (e) {
        return bodyFailed(e);
      }
      if (res.status === 429) {
        const s = Number(res.headers.get('retry-after'));
        const after = Number.isFinite(s) && s >= 0 ? s : undefined;
        if (after !== undefined && after > MAX_RETRY_AFTER_S)
          return fail(
            false,
            'source-unreachable',
            `asks us to wait ${after} s (HTTP 429) at ${url}; try later`,
            {
              status: 429,
            },
          );
        return fail(true, 'source-unreachable', `rate limit (HTTP 429) at ${url}`, {
          status: 429,
          ...(after !== undefined && { retryAfterS: after }),
        });
      }
      return fail(
        res.status >= 500 || res.status === 408,
        'source-unreachable',
        `answered HTTP ${res.status} to ${url}: ${text.slice(0, 200).trim()}`,
        { status: res.status },
      );
    }
    const notShape = (where: string, issue: z.core.$ZodIssue | undefined) =>
      new ShapeError(
        `answer to ${url} is not the documented shape at ${where || 'the top'}: ${issue?.message}`,
      );
    let bytes = 0;
    try {
      if ('whole' in shape) {
        const raw = await got.read();
        bytes = raw.byteLength;
        const parsed = shape.whole.safeParse(JSON.parse(new TextDecoder().decode(raw)));
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw notShape(issue?.path.join('.') ?? '', issue);
        }
        return { ok: true, value: parsed.data };
      }
      const out: unknown[] = [];
      const split = new JsonArraySplitter((v, i) => {
        if (shape.plain?.(v)) return void out.push(v);
        const parsed = shape.each.safeParse(v);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw notShape([i, ...(issue?.path ?? [])].join('.'), issue);
        }
        out.push(parsed.data);
      });
      bytes = await got.stream((c) => {
        bytes += c.byteLength;
        split.push(c);
      });
      split.end();
      return { ok: true, value: out as T };
    } catch (e) {
      if (e instanceof BodyError) return bodyFailed(e);
      if (e instanceof ShapeError) return fail(false, 'source-bad-answer', e.message);
      if (e instanceof JsonArrayError && e.otherJson)
        return fail(
          false,
          'source-bad-answer',
          `answer to ${url} is not the documented shape at the top: expected an array`,
        );
      if (e instanceof JsonArrayError || e instanceof SyntaxError)
        return fail(
          true,
          'source-bad-answer',
          `answered ${bytes} bytes that are not JSON to ${url} (${e.message})`,
        );
      throw e;
    }
  }
}
