/**
 * A real Debian `redis-server` on loopback for queue tests: a free port, no persistence, started
 * and stopped by the test (nothing started by hand survives into CI).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { checkRedis } from '../../src/queue/connection.js';

/** A port the kernel says is free now. */
async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as { port: number };
  s.close();
  await once(s, 'close');
  return port;
}

export class RedisServer {
  private child: ChildProcess | null = null;
  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<RedisServer> {
    const r = new RedisServer(await freePort());
    await r.restart();
    return r;
  }

  /** Start (again) on the same port, empty, and wait until it answers PING. */
  async restart(): Promise<void> {
    this.child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        return await checkRedis(this.url, 1000); // the product's own connect-and-PING
      } catch (e) {
        if (Date.now() > deadline) throw new Error(`redis-server on ${this.port}: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /** Stop it at once (SIGKILL: as a crash or a lost machine). */
  async kill(): Promise<void> {
    const c = this.child;
    this.child = null;
    if (c === null || c.exitCode !== null) return;
    c.kill('SIGKILL');
    await once(c, 'exit');
  }
}
