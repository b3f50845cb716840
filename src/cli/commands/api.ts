import type { Command } from 'commander';
import { checkServable } from '../../app/serve.js';
import { SnowdbError } from '../../errors.js';
import type { Runner } from '../context.js';

/** `snowdb api serve [--host] [--port] [--check]`. */
export function registerApi(program: Command, run: Runner): void {
  const api = program.command('api').description('the HTTP API');
  api
    .command('serve')
    .description('serve the HTTP API (JSON, CSV, OpenAPI at /openapi.json, docs at /docs and /redoc)')
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--port <port>', 'TCP port (0 = any free port)', '8000')
    .option('--check', 'validate the database and that the app builds, print OK, exit')
    .action((opts: { host: string; port: string; check?: boolean }, cmd: Command) =>
      run(cmd, async (ctx) => {
        const port = Number(opts.port);
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new SnowdbError('usage-error', `--port ${opts.port}: expected an integer 0-65535`);
        const db = await ctx.openDatabase();
        const { active, pourpoints } = await checkServable(db);
        // The HTTP stack loads only for this command.
        const { buildApp } = await import('../../api/app.js');
        const app = await buildApp(db);
        await app.ready();
        if (opts.check) {
          await app.close();
          ctx.out.data(
            `OK: ${db.root}: ${active.length} active dataset(s) (${active.join(', ') || 'none'}), ${pourpoints} pourpoint(s); the app builds`,
          );
          return;
        }
        const address = await app.listen({ host: opts.host, port });
        ctx.out.info(`snowdb API on ${address} (docs: ${address}/docs, ${address}/redoc); Ctrl-C stops it`);
        await new Promise<void>((resolve) => {
          const stop = () => {
            process.off('SIGINT', stop);
            process.off('SIGTERM', stop);
            void app.close().then(() => resolve());
          };
          process.on('SIGINT', stop);
          process.on('SIGTERM', stop);
        });
      }),
    );
}
