/**
 * Redis for the job queue: connection options from a `redis://` URL, a fail-fast reachability
 * check, and the queue's name for a database (one queue per database path, so workers of two
 * databases sharing a Redis never take each other's jobs).
 */
import { createHash } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { SnowdbError } from '../errors.js';

export interface QueueSettings {
  /** ms a worker's hold on a job lasts without renewal; a dead worker's job is retried after it. */
  readonly lockMs: number;
  /** ms an enqueuing command keeps waiting while Redis is unreachable, then gives up. */
  readonly graceMs: number;
}

/** ioredis options for `url` (`redis://[user:pass@]host[:port][/db]`, or `rediss://` for TLS). */
export function redisOptions(url: string): RedisOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new SnowdbError('usage-error', `--queue '${url}': not a URL (redis://host:port)`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new SnowdbError('usage-error', `--queue '${url}': not a redis:// or rediss:// URL`);
  const db = Number(u.pathname.slice(1) || '0');
  return {
    host: u.hostname || '127.0.0.1',
    port: Number(u.port || 6379),
    db: Number.isInteger(db) ? db : 0,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null, // BullMQ's blocking reads need it
  };
}

/** Without the password, for messages. */
export const shownUrl = (url: string): string => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');

/**
 * Connect once and PING, giving up after `timeoutMs`: an unreachable Redis is a clear error at
 * once, never a hang.
 * @throws SnowdbError `queue-unreachable`.
 */
export async function checkRedis(url: string, timeoutMs = 3000): Promise<void> {
  const client = new Redis({
    ...redisOptions(url),
    lazyConnect: true,
    connectTimeout: timeoutMs,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
  });
  client.on('error', () => {}); // reported by connect() below
  try {
    await client.connect();
    await client.ping();
  } catch (e) {
    throw new SnowdbError(
      'queue-unreachable',
      `cannot reach Redis at ${shownUrl(url)}: ${(e as Error).message}`,
    );
  } finally {
    client.disconnect();
  }
}

/** The queue of a database (by its absolute path: every machine mounts it at the same path). */
export function queueName(root: string): string {
  return `snowdb-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`;
}
