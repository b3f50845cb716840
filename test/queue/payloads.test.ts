/**
 * Queue payloads are input: a worker checks a job's kind and payload before any work, and names
 * what is wrong (pure: no Redis, no database).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkedJob } from '../../src/app/jobs.js';
import { SnowdbError } from '../../src/errors.js';

const ROOT = '/srv/snowdb';
const GOOD: Record<string, unknown> = {
  'ingest-date': {
    root: ROOT,
    name: 'snodas',
    job: { date: '20240101', files: ['/srv/in/SNODAS_20240101.tar'], fields: {}, rank: 0 },
    options: { force: false },
  },
  'fetch-date': {
    root: ROOT,
    name: 'snodas',
    base: 'https://noaadata.apps.nsidc.org',
    date: '2024-01-01',
    keepDownloads: false,
  },
  'zones-provider': {
    root: ROOT,
    names: ['snodas', 'swann'],
    provider: 'terrain',
    source: '/srv/dem.tif',
    urls: { threeDep: 'https://prd-tnm.s3.amazonaws.com/3dep', nlcd: 'https://example.org/nlcd.zip' },
    force: true,
  },
  'series-page': {
    root: ROOT,
    name: 'snodas',
    task: { variable: 'swe', page: '2024-01', dates: ['2024-01-01', '2024-01-02'], blockSet: 3 },
  },
};

const refused = (pattern: RegExp) => (e: unknown) =>
  SnowdbError.is(e) && e.key === 'invalid-queue-job' && pattern.test(e.message);

describe('queue job payloads', () => {
  it('every kind’s payload as the enqueuer writes it passes, with its database root', () => {
    for (const [kind, data] of Object.entries(GOOD)) {
      const job = checkedJob(kind, JSON.parse(JSON.stringify(data)));
      assert.equal(job.root, ROOT, kind);
      assert.deepEqual(job.data, data, kind);
    }
  });

  it('an unknown kind, a relative path, a missing or extra member, a wrong type: refused, naming where', () => {
    const ingest = GOOD['ingest-date'] as { job: object; options: object };
    const cases: [string, unknown, RegExp][] = [
      [
        'delete-everything',
        { root: ROOT },
        /unknown job kind 'delete-everything'.*this worker runs ingest-date, fetch-date, zones-provider, series-page/,
      ],
      [
        'ingest-date',
        { ...ingest, root: 'relative/db' },
        /'ingest-date' job is malformed at root: an absolute path/,
      ],
      [
        'ingest-date',
        { ...ingest, job: { ...ingest.job, files: ['../etc/passwd'] } },
        /malformed at job\.files\.0: an absolute path/,
      ],
      [
        'ingest-date',
        { ...ingest, job: { ...ingest.job, date: '2024-01-01' } },
        /malformed at job\.date: YYYYMMDD/,
      ],
      ['ingest-date', { ...ingest, options: { force: 'yes' } }, /malformed at options\.force/],
      [
        'fetch-date',
        { ...(GOOD['fetch-date'] as object), shell: 'rm -rf /' },
        /'fetch-date' job is malformed at the payload: .*shell/,
      ],
      [
        'zones-provider',
        { ...(GOOD['zones-provider'] as object), provider: 'hydrography' },
        /malformed at provider/,
      ],
      ['series-page', { root: ROOT, name: 'snodas' }, /malformed at task/],
      ['series-page', null, /malformed at the payload/],
    ];
    for (const [kind, data, pattern] of cases)
      assert.throws(() => checkedJob(kind, data), refused(pattern), `${kind} ${JSON.stringify(data)}`);
  });
});
