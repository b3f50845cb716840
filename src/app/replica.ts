import { createHash } from 'node:crypto';
import { Database } from '../db/database.js';
import { Layout } from '../db/layout.js';
import { type Bucket, HttpBucket } from '../io/bucket.js';
import { S3Bucket, type S3Settings } from '../io/bucket.s3.js';
import { TREE_KEY } from '../io/published-tree.js';
import { RemoteStore } from '../io/remote-store.js';

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

/** Replicas open in this process, by location: one tree, one refresh timer each. */
const open = new Map<string, Promise<Replica>>();

/**
 * Open the published copy at `location` as a read-only database: its files are seen under a
 * virtual root (`/snowdb-replica/<hash of the location>`) and read through the remote store; every
 * `refreshMs` one conditional request asks whether a newer tree was published (0: never).
 * `onRefreshError` hears a failed refresh (the tree held stays in use). A location already open in
 * this process is shared.
 * @throws SnowdbError `database-not-found`, `storage-unreachable`, `invalid-config`.
 */
export function openReplica(location: string, opts: ReplicaOptions): Promise<Replica> {
  let r = open.get(location);
  if (r === undefined) {
    r = connect(location, opts);
    open.set(location, r);
    r.catch(() => open.delete(location));
  }
  return r;
}

export interface ReplicaOptions {
  readonly refreshMs: number;
  readonly s3?: S3Settings;
  readonly onRefreshError?: (e: unknown) => void;
}

async function connect(location: string, opts: ReplicaOptions): Promise<Replica> {
  const root = `/snowdb-replica/${createHash('sha256').update(location).digest('hex').slice(0, 12)}`;
  const store = await RemoteStore.open(replicaBucket(location, opts.s3 ?? {}), root);
  let timer: NodeJS.Timeout | undefined;
  try {
    const db = await Database.open(root, location, store);
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
        open.delete(location);
      },
    };
  } catch (e) {
    clearInterval(timer);
    throw e;
  }
}
