/**
 * Stats scenario (issue 8): one water year (365 dates) × 2 variables × 1,000-ft elevation bands
 * for the Virgin River basin (2,455 km²) on the SNODAS grid, in-process through the call the CLI
 * makes. The 365 dates are hard links to two full-grid COGs (swe, depth) with values over the
 * basin: every date is still opened and read as its own file.
 */
import { link, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDataset } from '../src/datasets/registry.js';
import { Database } from '../src/db/database.js';
import { writeCog } from '../src/raster/cog.writer.js';
import { computeStats } from '../src/stats/engine.js';
import { REPO, snowdb } from './cli.js';
import { median, time } from './stats.js';

export async function statsBench(): Promise<Record<string, string>[]> {
  const dir = await mkdtemp(join(tmpdir(), 'snowdb-bench-stats-'));
  try {
    const root = join(dir, 'db');
    const zion = join(REPO, 'test/fixtures/zion');
    snowdb(root, ['init', root]);
    snowdb(root, ['pourpoint', 'sync', join(zion, 'pourpoints')]);
    snowdb(root, ['dataset', 'create', 'snodas', '--template', 'snodas']);
    snowdb(root, [
      'dataset',
      'generate-zones',
      'snodas',
      '--source',
      'terrain',
      join(zion, 'srtm.tif'),
      '--provider',
      'terrain',
    ]);
    snowdb(root, ['dataset', 'activate', 'snodas']);
    const db = await Database.open(root);
    const d = await openDataset(db, 'snodas');
    const { width, height } = d.grid;
    const masters: Record<string, string> = {};
    for (const v of ['swe', 'depth']) {
      const a = new Int16Array(width * height).fill(-9999);
      for (let r = 1750; r < 2050; r++)
        for (let c = 1250; c < 1600; c++) a[r * width + c] = (r * 7 + c * 3) % 500;
      masters[v] = join(dir, `${v}.tif`);
      await writeCog(masters[v]!, d.grid, a, { nodata: -9999, level: 1 });
    }
    const day0 = Date.UTC(2023, 9, 1);
    for (let i = 0; i < 365; i++) {
      const date = new Date(day0 + i * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
      const out = join(d.dir, 'cogs', date);
      await mkdir(out, { recursive: true });
      for (const v of ['swe', 'depth']) await link(masters[v]!, join(out, `${v}.tif`));
    }
    const query = {
      dataset: 'snodas',
      pourpoint: '09406000:UT:USGS',
      dates: { type: 'DateRange', start_date: '2023-10-01', end_date: '2024-09-30' } as const,
      zones: ['terrain.elevation'],
      variables: ['swe', 'depth'],
    };
    const runs = await time(5, () => computeStats(db, query));
    return [
      {
        scenario: 'stats: 365 dates × 2 variables × 1000-ft bands, 2,455 km² basin on SNODAS, in-process',
        median_ms: median(runs).toFixed(0),
        target: '< 1000',
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
