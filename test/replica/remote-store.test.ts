/**
 * A remote store's byte reads: served from 64 KiB chunks of each blob, the missing chunks of a
 * read fetched in one range request per run, every read's bytes those of the file.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DirBucket } from '../../src/io/bucket.js';
import { blobKey, TREE_KEY } from '../../src/io/published-tree.js';
import { RemoteStore } from '../../src/io/remote-store.js';
import { Runtime } from '../../src/util/runtime.js';
import { tempDir } from '../helpers/cli.js';

const KIB = 1024;

describe('remote store byte ranges', () => {
  it('reads any range of a blob exactly, one request per run of chunks it lacks, none for chunks it holds', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      // 300 KiB of distinct bytes: chunks 0..4, the last one 44 KiB.
      // A second blob of other bytes for the concurrent reads (the chunk cache is by content).
      const bytes = Buffer.alloc(300 * KIB);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
      const other = Buffer.from(bytes.map((b) => b ^ 0x5a));
      const files: Record<string, { size: number; sha256: string }> = {};
      for (const [name, b] of [
        ['x.page', bytes],
        ['y.page', other],
      ] as const) {
        const sha = createHash('sha256').update(b).digest('hex');
        await mkdir(join(dir, 'blobs', sha.slice(0, 2)), { recursive: true });
        await writeFile(join(dir, blobKey(sha)), b);
        files[`data/${name}`] = { size: b.length, sha256: sha };
      }
      const tree = { resource: 'snowdb.published/v1', published_at: '2026-01-01T00:00:00Z', files };
      await writeFile(join(dir, TREE_KEY), JSON.stringify(tree));
      const asked: string[] = [];
      const real = new DirBucket(dir);
      const bucket = Object.assign(Object.create(real) as DirBucket, {
        range: (key: string, offset: number, length: number) => {
          asked.push(`${offset}+${length}`);
          return real.range(key, offset, length);
        },
      });
      const store = await RemoteStore.open(bucket, '/remote-test', new Runtime());
      const path = '/remote-test/data/x.page';
      const read = async (offset: number, length: number, requests: string[]) => {
        asked.length = 0;
        const got = await store.readAt(path, offset, length);
        assert.deepEqual(Buffer.from(got), bytes.subarray(offset, Math.min(offset + length, bytes.length)));
        assert.deepEqual(asked, requests, `read ${offset}+${length}`);
      };
      await read(100, 70_000, [`0+${128 * KIB}`]); // chunks 0 and 1, one request
      await read(65_530, 20, []); // across the chunk 0/1 border, held
      await read(200 * KIB, 10, [`${192 * KIB}+${64 * KIB}`]); // chunk 3
      await read(0, bytes.length, [`${128 * KIB}+${64 * KIB}`, `${256 * KIB}+${44 * KIB}`]); // 2 and 4 lacked
      await read(299 * KIB, 10 * KIB, []); // cut at the end
      await read(bytes.length, 10, []);
      // Concurrent reads sharing chunks being fetched: right bytes, each chunk asked for once.
      asked.length = 0;
      const spans: [number, number][] = [
        [10, 200 * KIB],
        [64 * KIB - 1, 2],
        [150 * KIB, 150 * KIB],
        [5, 5],
      ];
      const gots = await Promise.all(spans.map(([o, n]) => store.readAt('/remote-test/data/y.page', o, n)));
      for (const [i, [o, n]] of spans.entries())
        assert.deepEqual(Buffer.from(gots[i]!), other.subarray(o, Math.min(o + n, other.length)));
      assert.deepEqual(asked, [`0+${256 * KIB}`, `${256 * KIB}+${44 * KIB}`]);
    } finally {
      await cleanup();
    }
  });
});
