import type { Command } from 'commander';
import { initDatabase } from '../../db/database.js';
import { configuredPath, rootOf } from '../../db/locate.js';
import type { Runner } from '../context.js';

export function registerInit(program: Command, run: Runner): void {
  program
    .command('init')
    .description(
      'create a database: snowdb.json, pourpoints/ and data/ (an existing database is left as it is)',
    )
    .argument('[dir]', 'database directory (default: --config or SNOWDB_CONFIG)')
    .action((dir: string | undefined, _opts: unknown, cmd: Command) =>
      run(cmd, async (ctx) => {
        const target = rootOf(configuredPath(dir ?? ctx.configOption, ctx.settings.configPath).path);
        const outcome = await initDatabase(target);
        if (outcome.kind === 'created') ctx.out.data(`initialized snowdb database at ${outcome.root}`);
        else ctx.out.data(`snowdb database already at ${outcome.root}; nothing changed`);
      }),
    );
}
