/**
 * Static files beside a published tree (`snowdb publish <target> --static`): for each active
 * dataset, under `static/<dataset>/`, the exports pandas, R and spreadsheets read by URL with no
 * server: `by-basin/<id>.csv` (each basin's whole history), `by-date/<YYYYMMDD>.csv` (every basin
 * on a date), `latest/<id>.csv` (each basin's newest date), `<dataset>.parquet` (everything), and
 * `index.json` (every file's size and sha256, written last). A file whose bytes did not change is
 * not uploaded again (a date's file changes only when the date is re-ingested); files no longer
 * made are removed.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatasets } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { type ExportQuery, type Format, type Layout, planExport } from '../export/plan.js';
import { runExport } from '../export/run.js';
import type { Bucket } from '../io/bucket.js';
import { parseDateRange } from '../stats/dates.js';
import { mapPool } from '../util/pool.js';

/** Where a dataset's static files go in the bucket. */
export const staticPrefix = (dataset: string) => `static/${dataset}/`;

export interface StaticReport {
  readonly dataset: string;
  readonly files: number;
  readonly uploaded: number;
  readonly removed: number;
}

interface IndexEntry {
  readonly size: number;
  readonly sha256: string;
}

const sha256 = async (file: string) =>
  createHash('sha256')
    .update(await readFile(file))
    .digest('hex');

/** Every file under `dir`, as paths relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) out.push(join(e.parentPath, e.name).slice(dir.length + 1));
  return out.sort();
}

/** Write one dataset's static files into `dir` through the exporter. */
async function exportAll(
  db: Database,
  dataset: string,
  dir: string,
  zones: readonly string[],
): Promise<void> {
  const base: Omit<ExportQuery, 'format' | 'layout'> = { dataset, dates: parseDateRange('../..'), zones };
  const run = async (format: Format, layout: Layout, out: string, last = false) => {
    const plan = await planExport(db, { ...base, format, layout });
    const newest = plan.chunks.at(-1)!.at(-1)!;
    await runExport(
      last ? await planExport(db, { ...base, dates: parseDateRange(newest), format, layout }) : plan,
      out,
    );
  };
  await run('csv', 'by-basin', join(dir, 'by-basin'));
  await run('csv', 'by-date', join(dir, 'by-date'));
  await run('csv', 'by-basin', join(dir, 'latest'), true);
  await run('parquet', 'long', join(dir, `${dataset}.parquet`));
}

/**
 * Publish the static files of every active dataset that covers a basin to `bucket`.
 * @throws SnowdbError `storage-unreachable` from the bucket (the index stays the old one).
 */
export async function publishStatic(
  db: Database,
  bucket: Bucket,
  zones: readonly string[] = [],
): Promise<StaticReport[]> {
  const reports: StaticReport[] = [];
  for (const d of (await openDatasets(db)).filter((x) => x.link.active)) {
    const dir = await mkdtemp(join(tmpdir(), `snowdb-static-${process.pid}-`));
    try {
      await exportAll(db, d.name, dir, zones).catch((e: unknown) => {
        // A dataset covering no basin, or holding no date, has no static files.
        if ((e as { key?: string }).key === 'invalid-query-parameter') return 'none';
        throw e;
      });
      const prefix = staticPrefix(d.name);
      const files = await filesUnder(dir);
      const index: Record<string, IndexEntry> = {};
      for (const f of files)
        index[f] = { size: (await stat(join(dir, f))).size, sha256: await sha256(join(dir, f)) };
      const got = await bucket.get(`${prefix}index.json`);
      const before = (
        got && got !== 'unchanged' ? JSON.parse(got.bytes.toString('utf8')).files : {}
      ) as Record<string, IndexEntry>;
      const fresh = files.filter((f) => before[f]?.sha256 !== index[f]!.sha256);
      await mapPool(fresh, 8, (f) => bucket.putFile(`${prefix}${f}`, join(dir, f), 'revalidate'));
      const body = {
        resource: 'snowdb.static/v1',
        dataset: d.name,
        published_at: new Date().toISOString(),
        files: index,
      };
      await bucket.put(`${prefix}index.json`, Buffer.from(`${JSON.stringify(body)}\n`), 'revalidate');
      const gone = Object.keys(before).filter((f) => index[f] === undefined);
      await mapPool(gone, 8, (f) => bucket.delete(`${prefix}${f}`));
      reports.push({ dataset: d.name, files: files.length, uploaded: fresh.length, removed: gone.length });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return reports;
}
