import { SnowdbError } from '../errors.js';

/** Station triplet `<station>:<state>:<network>`, e.g. `06287000:MT:USGS`, `WHEATFLD:AZ:USGS`. */
export const TRIPLET_PATTERN = /^[a-zA-Z0-9-]+:[a-zA-Z]{2}:[a-zA-Z]+$/;

export function isTriplet(s: string): boolean {
  return TRIPLET_PATTERN.test(s);
}

/**
 * The triplet itself, or an `invalid-name` error. The pattern admits no `/`, `\`, `.` or `_`,
 * so a valid triplet can never name a path outside the records folder.
 */
export function checkTriplet(s: string): string {
  if (!isTriplet(s)) {
    throw new SnowdbError(
      'invalid-name',
      `'${s}' is not a station triplet: expected <station>:<state>:<network>, e.g. 06287000:MT:USGS`,
    );
  }
  return s;
}
