import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DType } from '../../src/raster/dtype.js';
import { dayNumber, type PageHeader } from '../../src/series/page.js';
import { dayOfYear, parseDateRange } from '../../src/stats/dates.js';
import { planStats } from '../../src/stats/plan.js';
import { planReads, type StoreInputs } from '../../src/stats/reads.js';
import { inputs, query } from '../helpers/plan-inputs.js';

describe('the stats plan (pure: no raster, no file)', () => {
  it('names the files a query rests on: the AOI raster, the zone layer, the dates folder', () => {
    const plan = planStats(
      inputs,
      query({
        dates: parseDateRange('2024-01-15/2024-04-01'),
        zones: ['terrain.aspect'],
        variables: ['swe', 'depth', 'swe'],
      }),
    );
    assert.equal(plan.aoi, '/db/data/snodas/aoi/A_UT_USGS.tif');
    assert.deepEqual(
      plan.axes.map((a) => [a.axis.layer, a.path]),
      [['terrain.aspect', '/db/data/snodas/zones/terrain/aspect_majority.tif']],
    );
    assert.equal(plan.product, 6); // N, E, S, W, flat, then unclassified
    assert.deepEqual(plan.variables, ['depth', 'swe']);
    assert.deepEqual(plan.dates, ['2024-01-15', '2024-04-01']);
    assert.deepEqual(plan.stateFiles, [
      '/db/data/snodas/dataset.json',
      '/db/data/snodas/cogs',
      '/db/data/snodas/aoi/A_UT_USGS.tif',
      '/db/data/snodas/zones/terrain/aspect_majority.tif',
    ]);
  });

  it('columns: each variable’s mean, its volume when it is water, then its valid fraction on request', () => {
    const plan = planStats(inputs, query({ variables: ['depth', 'swe'], validFraction: true }));
    assert.deepEqual(
      plan.columns.map((c) => c.name),
      ['mean_depth_mm', 'valid_fraction_depth', 'mean_swe_mm', 'total_swe_m3', 'valid_fraction_swe'],
    );
    assert.equal(plan.product, 1);
    assert.deepEqual(plan.axes, []);
  });

  it('a day of year selects that calendar day in the years asked for', () => {
    const plan = planStats(inputs, query({ dates: dayOfYear(4, 1, 2023, 2024), variables: ['swe'] }));
    assert.deepEqual(plan.dates, ['2023-04-01', '2024-04-01']);
  });

  it('a selection with no held date carries a note naming the nearest held dates before and after', () => {
    const note = (dates: ReturnType<typeof parseDateRange>, held = inputs.dates) =>
      planStats({ ...inputs, dates: held }, query({ dates, variables: ['swe'] })).notes;
    const see = "(see 'snowdb dataset dates snodas')";
    assert.deepEqual(note(parseDateRange('2024-02-01/2024-03-31')), [
      `no date of 'snodas' is ingested in 2024-02-01/2024-03-31; the nearest held: 2024-01-15 (before) and 2024-04-01 (after) ${see}`,
    ]);
    assert.deepEqual(note(parseDateRange('2024-05-01/..')), [
      `no date of 'snodas' is ingested in 2024-05-01/..; the nearest held: 2024-04-02 (before) ${see}`,
    ]);
    assert.deepEqual(note(dayOfYear(4, 3, 2023, 2024)), [
      `no date of 'snodas' is ingested in 04-03 of 2023..2024; the nearest held: 2023-04-01 (before) ${see}`,
    ]);
    assert.deepEqual(note(parseDateRange('2024-01-15'), []), [
      "'snodas' holds no date yet: nothing to answer for 2024-01-15",
    ]);
    assert.deepEqual(note(parseDateRange('2024-01-15')), []);
  });

  it('refuses a crossing over the cell cap before anything is read, and takes one at the cap', () => {
    const zones = ['terrain.elevation', 'terrain.aspect'];
    const product = planStats(inputs, query({ zones })).product - 1; // the crossing, without unclassified
    assert.equal(product % 5, 0);
    assert.equal(planStats(inputs, query({ zones, maxZoneCells: product })).product, product + 1);
    assert.throws(
      () => planStats(inputs, query({ zones, maxZoneCells: product - 1 })),
      (e: Error & { key?: string; extra?: { parameter?: string } }) =>
        e.key === 'invalid-query-parameter' &&
        e.extra?.parameter === 'zone' &&
        e.message ===
          `the zone crossing has ${product} cells, more than the limit of ${product - 1}; use fewer axes or coarser parameters`,
    );
    assert.throws(
      () => planStats(inputs, query({ zones: ['terrain.elevation:band_step_ft=1'] })),
      /the zone crossing has \d{5} cells, more than the limit of 10000/,
    );
  });

  it('names the basin that is unknown or outside the grid, and the variable that is unknown', () => {
    assert.throws(
      () => planStats(inputs, query({ pourpoint: 'C:UT:USGS' })),
      /no pourpoint C:UT:USGS in the index/,
    );
    assert.throws(
      () => planStats(inputs, query({ pourpoint: 'B:UT:USGS' })),
      /pourpoint B:UT:USGS lies outside the grid of 'snodas'/,
    );
    assert.throws(
      () => planStats(inputs, query({ variables: ['swe', 'snowfall'] })),
      (e: Error & { extra?: { allowed?: string[] } }) =>
        /unknown variable 'snowfall' for 'snodas'/.test(e.message) && e.extra?.allowed?.length === 8,
    );
  });

  it('the reads: per variable, which dates a series page gives (at which slot) and which come from COGs', () => {
    const dates = [
      '2024-01-01',
      '2024-01-05',
      '2024-01-09',
      '2024-01-12',
      '2024-01-14',
      '2024-02-20',
      '2024-03-01',
    ];
    const header = (dtype: DType, ...held: string[]): PageHeader => ({
      path: '/db/data/snodas/series/swe/page',
      appendable: true,
      blockSet: 1,
      dtype,
      days: Uint32Array.from(held, dayNumber),
      blocks: 0,
      offset: () => 0,
      length: () => 0,
      dataStart: 0,
    });
    const store: StoreInputs = {
      variables: ['swe'], // depth is not in the store
      stale: new Set(['2024-01-05']),
      headers: new Map([
        ['swe/202401-0', header('int16', '2024-01-01', '2024-01-05')],
        ['swe/202401-1', header('int16', '2024-01-09', '2024-01-12')], // 01-14 not yet paged
        ['swe/202402-2', header('float32', '2024-02-20')], // written for another dtype
        ['swe/202403-0', null], // absent or damaged
      ]),
    };
    const q = { dataset: inputs.dataset, dates, variables: ['depth', 'swe'] };
    const [depth, swe] = planReads(q, store);
    assert.deepEqual(depth, { variable: 'depth', pages: [], cogs: [0, 1, 2, 3, 4, 5, 6] });
    assert.deepEqual(
      swe!.pages.map((p) => [p.page, p.rows, p.slots]),
      [
        ['202401-0', [0], [0]],
        ['202401-1', [2, 3], [0, 1]],
      ],
    );
    assert.deepEqual(swe!.cogs, [1, 4, 5, 6]); // stale, not paged, other dtype, no page
    // No store: every date of every variable from its COG.
    assert.deepEqual(
      planReads(q, null).map((r) => [r.variable, r.pages.length, r.cogs.length]),
      [
        ['depth', 0, 7],
        ['swe', 0, 7],
      ],
    );
  });
});
