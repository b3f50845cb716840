import { hostname } from 'node:os';
import type { Command } from 'commander';
import { checkServable, serveLimits } from '../../app/serve.js';
import { removeDebris, tmpDebris } from '../../db/debris.js';
import { type ApiConfig, ApiConfigSchema } from '../../db/root-config.js';
import { SnowdbError } from '../../errors.js';
import type { Runner } from '../context.js';
import { untilStopped } from '../stop.js';

interface ServeFlags {
  host: string;
  port: string;
  check?: boolean;
  publicUrl?: string;
  maxUrlBytes?: string;
  concurrency?: string;
  queue?: string;
  timeout?: string;
  maxZoneCells?: string;
  maxValues?: string;
  logLevel: string;
}

const LOG_LEVELS = ['silent', 'error', 'warn', 'info', 'debug'];
const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));

/** The flags as a root-config `api` block, validated by the same schema. */
function flagConfig(o: ServeFlags): ApiConfig {
  const raw = {
    public_url: o.publicUrl,
    max_url_bytes: num(o.maxUrlBytes),
    concurrency: num(o.concurrency),
    queue: num(o.queue),
    timeout_s: num(o.timeout),
    max_zone_cells: num(o.maxZoneCells),
    max_values: num(o.maxValues),
  };
  const parsed = ApiConfigSchema.safeParse(
    Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)),
  );
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0]);
    const flag = `--${key === 'timeout_s' ? 'timeout' : key.replaceAll('_', '-')}`;
    throw new SnowdbError('usage-error', `${flag}: ${issue.message}`);
  }
  return parsed.data;
}

/** The URL links name when none is configured: the listening address (a wildcard → this host's name). */
function defaultPublicUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? hostname() : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** `snowdb api serve [--host] [--port] [--check] [limits…]`. */
export function registerApi(program: Command, run: Runner): void {
  const api = program.command('api').description('the HTTP API');
  api
    .command('serve')
    .description('serve the HTTP API (JSON, CSV, OpenAPI at /openapi.json, docs at /docs and /redoc)')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'TCP port (0 = any free port)', '8000')
    .option('--check', 'validate the database and that the app builds, print OK, exit')
    .option('--public-url <url>', 'the URL clients reach the API at (behind a proxy: its URL); links name it')
    .option('--max-url-bytes <n>', 'longest request target; longer is 414 (default 8192)')
    .option('--concurrency <n>', 'expensive queries computing at once (default: CPUs, at least 2)')
    .option('--queue <n>', 'expensive queries waiting; more get 503 + Retry-After (default 64)')
    .option('--timeout <s>', 'per-request time limit in seconds, queueing included (default 60)')
    .option('--max-zone-cells <n>', 'most cells of a zone crossing (default 10000)')
    .option('--max-values <n>', 'most numbers (dates × cells × columns) in one answer (default 5000000)')
    .option('--log-level <level>', `server log on stdout, JSON lines: ${LOG_LEVELS.join(', ')}`, 'info')
    .action((opts: ServeFlags, cmd: Command) =>
      run(cmd, async (ctx) => {
        const port = Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new SnowdbError('usage-error', `--port ${opts.port}: expected an integer 0-65535`);
        if (!LOG_LEVELS.includes(opts.logLevel))
          throw new SnowdbError(
            'usage-error',
            `--log-level ${opts.logLevel}: expected one of ${LOG_LEVELS.join(', ')}`,
          );
        const flags = flagConfig(opts);
        const db = await ctx.openDatabase('read');
        const { active, pourpoints } = await checkServable(db);
        const limits = serveLimits(db.config.api, flags);
        const configured = flags.public_url ?? db.config.api?.public_url;
        // The HTTP stack loads only for this command.
        const { buildApp } = await import('../../api/app.js');
        const app = await buildApp(db, {
          limits,
          publicUrl: configured,
          logger: opts.logLevel === 'silent' || opts.check ? false : { level: opts.logLevel },
        });
        await app.ready();
        // A server's worker threads stay up between long scans (the next one does not pay their start).
        if (!opts.check) db.runtime.keepWorkersWarm();
        if (opts.check) {
          await app.close();
          ctx.out.data(
            `OK: ${db.location}: ${active.length} active dataset(s) (${active.join(', ') || 'none'}), ${pourpoints} pourpoint(s); the app builds`,
          );
          return;
        }
        // What an earlier server killed mid-export left in the temp dir goes before this one answers.
        await removeDebris(await tmpDebris());
        const address = await app.listen({ host: opts.host, port }).catch(async (e: unknown) => {
          await app.close();
          if ((e as { code?: string }).code !== 'EADDRINUSE') throw e;
          throw new SnowdbError(
            'address-in-use',
            `${opts.host}:${port} is in use (another server listens there?); choose another port with --port`,
          );
        });
        const bound = new URL(address).port;
        if (configured === undefined) app.snowdb.publicUrl = defaultPublicUrl(opts.host, Number(bound));
        ctx.out.info(
          `snowdb API on ${address} (docs: ${address}/docs, ${address}/redoc; links name ${app.snowdb.publicUrl}); ` +
            `${limits.concurrency} expensive queries at once, ${limits.queue} waiting, ${limits.timeoutMs / 1000} s per request; Ctrl-C stops it`,
        );
        await untilStopped(() => app.close());
      }),
    );
}
