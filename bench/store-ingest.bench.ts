/**
 * What the series store costs a daily ingest (issues 18 and 42: within 1.5× of ingest without
 * it). Two copies of the daily-varying bench database (its closed water years packed) made of
 * symbolic links to its files (every writer replaces
 * files by rename, so the copies never change the originals): one keeps the store (swe and depth),
 * one has `series.variables: []`. Each of 8 new dates (a generated SNODAS tar, snow fields like
 * the bench's) is ingested into both, interleaved; the new dates' stats must agree.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { snodasTar } from '../scripts/demo/snodas.js';
import { openDataset } from '../src/datasets/registry.js';
import { Database } from '../src/db/database.js';
import { ingestSources } from '../src/ingest/run.js';
import { computeStats } from '../src/stats/engine.js';
import { fixturePath } from '../test/helpers/raster.js';
import type { BenchDatabase } from './fixture/database.js';
import { snowField, westElevation } from './fixture/database.js';
import { median, spread } from './stats.js';

const DATES = Array.from({ length: 8 }, (_, i) => `2024-10-0${i + 1}`);

export async function storeIngestRow(b: BenchDatabase, years: number): Promise<Record<string, string>> {
  const dir = await mkdtemp(join(dirname(b.root), 'store-ingest-'));
  try {
    const elev = westElevation();
    const tars: string[] = [];
    for (const [i, date] of DATES.entries()) {
      const ymd = date.replaceAll('-', '');
      const swe = snowField(i % 3, 'swe', elev);
      const depth = snowField(i % 3, 'depth', elev);
      const zero = new Int16Array(swe.length);
      const tar = await snodasTar(fixturePath('snodas/fake_snodas.hdr'), ymd, (p) =>
        p.variable === 'swe' ? swe : p.variable === 'depth' ? depth : zero,
      );
      tars.push(join(dir, `SNODAS_${ymd}.tar`));
      await writeFile(tars.at(-1)!, tar);
    }
    const copies = { store: join(dir, 'with-store'), none: join(dir, 'without-store') };
    for (const copy of Object.values(copies)) execFileSync('cp', ['-rs', b.root, copy]);
    const plain = await openDataset(await Database.open(copies.none), b.dataset);
    const config = JSON.parse(await readFile(plain.configPath, 'utf8'));
    config.series = { variables: [] };
    await writeFile(`${plain.configPath}.tmp`, JSON.stringify(config, null, 2));
    await rename(`${plain.configPath}.tmp`, plain.configPath); // a new file: the original stays
    const times = { store: [] as number[], none: [] as number[] };
    for (const [i, tar] of tars.entries()) {
      for (const k of ['store', 'none'] as const) {
        const db = await Database.open(copies[k]);
        const t = performance.now();
        const report = await ingestSources(db, b.dataset, [tar]);
        times[k].push(performance.now() - t);
        const failed = report.results.filter((r) => r.action === 'failed');
        if (failed.length > 0) throw new Error(`ingest ${tar}: ${JSON.stringify(failed)}`);
      }
      const q = {
        dataset: b.dataset,
        pourpoint: '09406000:UT:USGS',
        dates: { type: 'DateRange' as const, start_date: DATES[i]!, end_date: DATES[i]! },
        variables: ['swe'],
      };
      const [a, c] = await Promise.all(
        [copies.store, copies.none].map(async (r) => computeStats(await Database.open(r), q)),
      );
      if (JSON.stringify(a) !== JSON.stringify(c)) throw new Error(`${DATES[i]}: the copies disagree`);
    }
    return {
      scenario: `ingest one new date (SNODAS tar, 8 products), ${years}-water-year daily database, 8 dates: with the store vs without`,
      snowdb: spread(times.store, 0),
      baseline: spread(times.none, 0),
      ratio: `${(median(times.store) / median(times.none)).toFixed(2)}× the time`,
      target: '≤ 1.5× the time',
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
