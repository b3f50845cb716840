import { Command, CommanderError } from 'commander';
import { ENV } from '../env.js';
import { SnowdbError } from '../errors.js';
import { VERSION } from '../version.js';
import { registerApi } from './commands/api.js';
import { registerDatasetCommands } from './commands/dataset.js';
import { registerInit } from './commands/init.js';
import { registerPourpoint } from './commands/pourpoint.js';
import { registerStats } from './commands/stats.js';
import { registerStatus } from './commands/status.js';
import { contextFor, type Runner } from './context.js';
import type { Env, Streams } from './output.js';

/** The commander program with every command registered; nothing is parsed yet. */
export function buildProgram(streams: Streams, env: Env): Command {
  const program = new Command('snowdb')
    .description('snowdb: gridded daily snow datasets and basins, stratified statistics per basin')
    .version(VERSION, '-V, --version', 'print the snowdb version')
    .option('--config <path>', `database directory or its snowdb.json (default: $${ENV.config})`)
    .option('-q, --quiet', 'no progress or status lines on stderr (data on stdout is unchanged)')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void streams.stdout.write(s),
      writeErr: (s) => void streams.stderr.write(s),
    });
  const run: Runner = (cmd, fn) => fn(contextFor(cmd, streams, env));
  registerInit(program, run);
  registerStatus(program, run);
  registerPourpoint(program, run);
  registerDatasetCommands(program, run);
  registerStats(program, run);
  registerApi(program, run);
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const cmd of all(program)) cmd.exitOverride();
  return program;
}

/**
 * Parse and run: exit 0 on success, 1 for a domain error (one `Error: …` line on stderr),
 * 2 for a usage error. Anything else is a bug: its stack goes to stderr, exit 1.
 */
export async function runCli(argv: readonly string[], streams: Streams, env: Env): Promise<number> {
  const program = buildProgram(streams, env);
  try {
    await program.parseAsync(argv as string[], { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      const ok =
        e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
      return ok ? 0 : 2;
    }
    if (SnowdbError.is(e)) {
      streams.stderr.write(`Error: ${e.message}\n`);
      return e.kind.exit;
    }
    streams.stderr.write(
      `Internal error (a bug in snowdb, please report it): ${(e as Error)?.stack ?? String(e)}\n`,
    );
    return 1;
  }
}
