/**
 * Freshness: how old a dataset's newest date is against its usual lag, in `/datasets`,
 * `/datasets/{d}` and `snowdb doctor --check freshness` (the cron alert), on a copy of the
 * generated snow-cover database (newest date 2024-01-06, no template: a lag only when configured).
 */
import assert from 'node:assert/strict';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { buildApp } from '../../src/api/app.js';
import { Database } from '../../src/db/database.js';
import { snowdb, tempDir } from '../helpers/cli.js';
import { coverDb } from '../helpers/cover-db.js';

const NEWEST = '2024-01-06';
/** Whole days from NEWEST to today (UTC), computed here from the clock. */
const age = () =>
  Math.round((Date.parse(new Date().toISOString().slice(0, 10)) - Date.parse(NEWEST)) / 86_400_000);

describe('freshness', () => {
  it('reports the newest date and its age; late only past a stated usual lag; doctor --check freshness fails then', async (t) => {
    const { dir, cleanup } = await tempDir('snowdb-fresh-');
    t.after(cleanup);
    await cp((await coverDb()).dir, dir, { recursive: true, preserveTimestamps: true });
    const root = join(dir, 'db');
    const env = { SNOWDB_CONFIG: root };
    const config = join(root, 'data/cover/dataset.json');
    const setLag = async (lag: number | undefined) => {
      const c = JSON.parse(await readFile(config, 'utf8')) as Record<string, unknown>;
      if (lag === undefined) delete c.usual_lag_days;
      else c.usual_lag_days = lag;
      await writeFile(config, JSON.stringify(c));
    };
    const get = async (url: string) => {
      const app = await buildApp(await Database.open(root));
      try {
        const r = await app.inject({ method: 'GET', url });
        assert.equal(r.statusCode, 200, r.body);
        return r.json() as Record<string, unknown>;
      } finally {
        await app.close();
      }
    };

    // No template, no stated lag: never late.
    const list = (await get('/datasets')) as { datasets: Record<string, unknown>[] };
    const { links: _, ...item } = list.datasets.find((d) => d.name === 'cover')!;
    assert.deepEqual(item, {
      name: 'cover',
      newest_date: NEWEST,
      age_days: age(),
      usual_lag_days: null,
      late: false,
    });
    let r = await snowdb(['doctor', '--check', 'freshness'], { env });
    assert.equal(r.code, 0, r.stderr);

    // A stated lag of 1 day: the 2024 dates are late; doctor says so and exits 1 (cron mails).
    await setLag(1);
    assert.deepEqual((await get('/datasets/cover')).freshness, {
      newest_date: NEWEST,
      age_days: age(),
      usual_lag_days: 1,
      late: true,
    });
    r = await snowdb(['doctor', '--check', 'freshness'], { env });
    assert.equal(r.code, 1);
    assert.match(
      r.stdout + r.stderr,
      new RegExp(`newest date is ${age()} day\\(s\\) old on .*usually 1 day\\(s\\) behind`),
    );
    // Not among the default checks: a database of past seasons is not broken.
    r = await snowdb(['doctor'], { env });
    assert.doesNotMatch(r.stdout + r.stderr, /freshness/);

    // A lag longer than the age: on time again.
    await setLag(age() + 1);
    r = await snowdb(['doctor', '--check', 'freshness'], { env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(((await get('/datasets/cover')).freshness as { late: boolean }).late, false);
  });
});
