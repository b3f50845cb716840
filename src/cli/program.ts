import { Command, CommanderError } from 'commander';
import { ENV } from '../env.js';
import { operatorError, SnowdbError } from '../errors.js';
import { VERSION } from '../version.js';
import { contextFor, type Runner } from './context.js';
import { type Env, type Streams, visible } from './output.js';

type Register = (program: Command, run: Runner) => void;

/**
 * Each top-level command's module, loaded on demand: a command loads only its own dependencies
 * (the HTTP stack, NetCDF readers … load only for the commands that use them).
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  init: async () => (await import('./commands/init.js')).registerInit,
  status: async () => (await import('./commands/status.js')).registerStatus,
  doctor: async () => (await import('./commands/status.js')).registerStatus,
  pourpoint: async () => (await import('./commands/pourpoint.js')).registerPourpoint,
  dataset: async () => (await import('./commands/dataset.js')).registerDatasetCommands,
  stats: async () => (await import('./commands/stats.js')).registerStats,
  'stats-all': async () => (await import('./commands/stats.js')).registerStatsAll,
  normals: async () => (await import('./commands/history.js')).registerNormals,
  'water-years': async () => (await import('./commands/history.js')).registerWaterYears,
  snowline: async () => (await import('./commands/history.js')).registerSnowline,
  changes: async () => (await import('./commands/history.js')).registerChanges,
  compare: async () => (await import('./commands/history.js')).registerCompare,
  point: async () => (await import('./commands/point.js')).registerPoint,
  group: async () => (await import('./commands/group.js')).registerGroup,
  stations: async () => (await import('./commands/stations.js')).registerStations,
  export: async () => (await import('./commands/export.js')).registerExport,
  forecast: async () => (await import('./commands/stations.js')).registerForecast,
  update: async () => (await import('./commands/fetch.js')).registerUpdate,
  api: async () => (await import('./commands/api.js')).registerApi,
  worker: async () => (await import('./commands/worker.js')).registerWorker,
  publish: async () => (await import('./commands/publish.js')).registerPublish,
};

/** The command an argument list names (the first word that is not a global option), if any. */
function commandOf(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--config') i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

/**
 * The commander program with the commands `argv` needs registered (all of them for help, an
 * unknown command or none); nothing is parsed yet.
 */
export async function buildProgram(
  streams: Streams,
  env: Env,
  argv: readonly string[] = [],
): Promise<Command> {
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
  // The command's runtime ends with it: its idle worker threads stop (and their memory goes).
  const run: Runner = async (cmd, fn) => {
    const ctx = contextFor(cmd, streams, env);
    try {
      await fn(ctx);
    } finally {
      await ctx.runtime.close();
    }
  };
  const named = COMMANDS[commandOf(argv) ?? ''];
  const loaders = named ? [named] : Object.values(COMMANDS);
  for (const register of new Set(await Promise.all(loaders.map((load) => load())))) register(program, run);
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const cmd of all(program)) cmd.exitOverride();
  return program;
}

/**
 * Parse and run: exit 0 on success, 1 for a domain error (one `Error: …` line on stderr),
 * 2 for a usage error. Anything else is a bug: its stack goes to stderr, exit 1.
 */
export async function runCli(argv: readonly string[], streams: Streams, env: Env): Promise<number> {
  const program = await buildProgram(streams, env, argv);
  try {
    await program.parseAsync(argv as string[], { from: 'user' });
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      const ok =
        e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
      return ok ? 0 : 2;
    }
    const known = SnowdbError.is(e) ? e : operatorError(e);
    if (known !== null) {
      streams.stderr.write(`Error: ${visible(known.message)}\n`);
      return known.kind.exit;
    }
    streams.stderr.write(
      `Internal error (a bug in snowdb, please report it): ${(e as Error)?.stack ?? String(e)}\n`,
    );
    return 1;
  }
}
