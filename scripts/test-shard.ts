/**
 * One shard of `npm test`: imports every test file named on the command line into this one
 * process, where node:test runs their tests in order (as `--test-isolation=none` does on Node ≥
 * 22.8, and on Node 20 too). Files share loaded modules, the V8 heap and the process start, which a
 * process per file pays again each time. A file must leave the process as it found it (its
 * environment variables, servers and timers). A file that fails to load is named, the shard fails,
 * and the other files still run.
 *
 * node:test's harness installs an async hook with a destroy callback, to know which test each async
 * resource belongs to: every promise of the process then gets init and destroy tracking (a weak
 * callback each). Our tests run the CLI and the API in this process, and their promises paid it:
 * 1M awaits took 1.7–2.4 s with the hook, 0.35–0.5 s with the one below, 0.07–0.14 s with none
 * (Node 20 and 26; BENCHMARKS.md, sixteenth session). The shard gives the harness a hook that sees
 * only its tests' own resources (type 'Test'): `describe`, `it` and the hooks still find their
 * suite, as they are called synchronously in its scope (no test file calls them after an await).
 * What it loses is charging an uncaught error (or unhandled rejection) from a timer or a socket to
 * the test that started it: such an error is reported at the top level and fails the run (the
 * harness sets the exit code), and the shard ends a minute later if a test still waits on the
 * broken work.
 * Only the harness's own call is answered so; elsewhere createHook is Node's.
 */
import asyncHooks from 'node:async_hooks';

const createHook = asyncHooks.createHook;
asyncHooks.createHook = function (callbacks) {
  if (!(new Error().stack ?? '').includes('internal/test_runner/harness') || callbacks.init === undefined)
    return createHook.call(this, callbacks);
  const init = callbacks.init;
  return createHook.call(this, {
    init(asyncId, type, triggerAsyncId, resource) {
      if (type === 'Test') init.call(this, asyncId, type, triggerAsyncId, resource);
    },
  });
};
for (const event of ['uncaughtException', 'unhandledRejection'] as const)
  process.on(event, () => {
    setTimeout(() => {
      console.error(`✖ an ${event} (reported above) left this shard waiting: ending it`);
      process.exit(1);
    }, 60_000).unref();
  });

for (const file of process.argv.slice(2)) {
  try {
    await import(file);
  } catch (e) {
    process.exitCode = 1;
    console.error(`✖ ${file} failed to load: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
}
