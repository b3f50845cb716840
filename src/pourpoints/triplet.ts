import { SnowdbError } from '../errors.js';

/** Station triplet `<station>:<state>:<network>`, e.g. `06287000:MT:USGS`, `WHEATFLD:AZ:USGS`. */
export const TRIPLET_PATTERN = /^[a-zA-Z0-9-]+:[a-zA-Z]{2}:[a-zA-Z]+$/;

/** A basin of an imported set: `<set>:<id>`, e.g. `huc12:140700010101` (set lower case, id letters, digits, `-`). */
export const SET_ID_PATTERN = /^[a-z][a-z0-9-]{0,31}:[a-zA-Z0-9-]{1,64}$/;

/** A set name: lower-case letters, digits and `-`, starting with a letter, at most 32. */
export const SET_NAME_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;

/** A set member's own id: letters, digits and `-`, at most 64. */
export const MEMBER_ID_PATTERN = /^[a-zA-Z0-9-]{1,64}$/;

export function isTriplet(s: string): boolean {
  return TRIPLET_PATTERN.test(s);
}

/** A basin id: a station triplet (BAGIS records) or `<set>:<id>` (imported basin sets). */
export function isBasinId(s: string): boolean {
  return TRIPLET_PATTERN.test(s) || SET_ID_PATTERN.test(s);
}

/**
 * The basin id itself, or an `invalid-name` error. Neither pattern admits `/`, `\`, `.` or `_`,
 * so a valid id can never name a path outside the records folder.
 */
export function checkTriplet(s: string): string {
  if (!isBasinId(s)) {
    throw new SnowdbError(
      'invalid-name',
      `'${s}' is not a basin id: expected a station triplet <station>:<state>:<network> (06287000:MT:USGS) or <set>:<id> (huc12:140700010101)`,
    );
  }
  return s;
}
