import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { referenceNote, referenceYears } from '../../src/stats/normals.js';
import { defaultReferenceYears } from '../../src/stats/water-year.js';

/** Every ISO date from `first` to `last`, inclusive, minus `skip`. */
function days(first: string, last: string, skip: readonly string[] = []): string[] {
  const out: string[] = [];
  for (let t = Date.parse(first); t <= Date.parse(last); t += 86_400_000) {
    const d = new Date(t).toISOString().slice(0, 10);
    if (!skip.includes(d)) out.push(d);
  }
  return out;
}

describe('the reference period rule (pure)', () => {
  // Water year 2020 misses one day, 2021 is whole, 2022 runs to 15 January (the current year).
  const dates = days('2019-10-01', '2022-01-15', ['2020-02-11']);

  it('by default: every water year before the current one, however many days each holds', () => {
    assert.deepEqual(defaultReferenceYears(dates), [2020, 2021]);
    // The current year joins once it holds 30 September.
    assert.deepEqual(defaultReferenceYears(days('2019-10-01', '2022-09-30')), [2020, 2021, 2022]);
    assert.deepEqual(defaultReferenceYears(days('2021-10-01', '2022-01-15')), []);
    assert.deepEqual(defaultReferenceYears([]), []);
    assert.deepEqual(referenceYears(dates, 'd'), {
      start_water_year: 2020,
      end_water_year: 2021,
      water_years: [2020, 2021],
      by_default: true,
      missing_water_years: [],
    });
    assert.equal(referenceNote('d', referenceYears(dates, 'd')), null);
  });

  it('asked years: those holding a date are used, the others are named in the answer and a note', () => {
    const r = referenceYears(dates, 'd', { start: 2016, end: 2021 });
    assert.deepEqual(r.water_years, [2020, 2021]);
    assert.deepEqual(r.missing_water_years, [2016, 2017, 2018, 2019]);
    assert.equal(r.by_default, false);
    assert.equal(
      referenceNote('d', r),
      "reference water years 2016..2021 asked; 'd' holds 2 of them (2020–2021), so the normals use those; 4 hold no date (2016–2019)",
    );
  });

  it('no year to compare with is a clear error', () => {
    assert.throws(
      () => referenceYears(days('2021-10-01', '2022-01-15'), 'd'),
      /'d' has no water year before its current one \(dates 2021-10-01 … 2022-01-15\); name reference years with normals_years=Y1..Y2 \(--normals-years Y1..Y2 on the command line\)/,
    );
    assert.throws(
      () => referenceYears(dates, 'd', { start: 2000, end: 2005 }),
      /'d' has no date in water years 2000..2005/,
    );
  });
});
