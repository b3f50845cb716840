import { createHash } from 'node:crypto';
import { Database } from '../db/database.js';
import { Layout } from '../db/layout.js';
import { type Bucket, HttpBucket } from '../io/bucket.js';
import { S3Bucket, type S3Settings } from '../io/bucket.s3.js';
import { TREE_KEY } from '../io/published-tree.js';
import { RemoteStore } from '../io/remote-store.js';
import type { Runtime } from '../util/runtime.js';

/** The bucket of a published copy; a URL may name its folder, its `snowdb.json` or its tree object. */
export function replicaBucket(location: string, s3: S3Settings): Bucket {
  const base = location.replace(new RegExp(`/(${Layout.rootConfig}|${TREE_KEY})$`), '').replace(/\/+$/, '');
  return base.startsWith('s3://') ? new S3Bucket(base, s3) : new HttpBucket(base);
}

/** A read-only database served from a published copy, and what keeps it current. */
export interface Replica {
  readonly db: Database;
  readonly store: RemoteStore;
  /** Stop refreshing (the database reads nothing more through it). */
  close(): void;
}

/**
 * Open the published copy at `location` as a read-only database: its files are seen under a
 * virtual root (`/snowdb-replica/<hash of the location>`) and read through the remote store; every
 * `refreshMs` one conditional request asks whether a newer tree was published (0: never).
 * `onRefreshError` hears a failed refresh (the tree held stays in use). A location already open in
 * the runtime is shared (one tree, one refresh timer).
 * @throws SnowdbError `database-not-found`, `storage-unreachable`, `invalid-config`.
 */
export function openReplica(location: string, opts: ReplicaOptions): Promise<Replica> {
  return opts.runtime.share(`replica ${location}`, () => connect(location, opts));
}

export interface ReplicaOptions {
  /** Whose caches hold its bytes, and where it is shared. */
  readonly runtime: Runtime;
  readonly refreshMs: number;
  readonly s3?: S3Settings;
  readonly onRefreshError?: (e: unknown) => void;
}

async function connect(location: string, opts: ReplicaOptions): Promise<Replica> {
  const root = `/snowdb-replica/${createHash('sha256').update(location).digest('hex').slice(0, 12)}`;
  const store = await RemoteStore.open(replicaBucket(location, opts.s3 ?? {}), root, opts.runtime);
  let timer: NodeJS.Timeout | undefined;
  try {
    const db = await Database.open(root, { location, store, runtime: opts.runtime });
    if (opts.refreshMs > 0) {
      timer = setInterval(() => {
        store.refresh().catch((e: unknown) => opts.onRefreshError?.(e));
      }, opts.refreshMs);
      timer.unref();
    }
    return {
      db,
      store,
      close: () => {
        clearInterval(timer);
        opts.runtime.unshare(`replica ${location}`);
      },
    };
  } catch (e) {
    clearInterval(timer);
    throw e;
  }
}
