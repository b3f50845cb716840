/**
 * One shard of `npm test`: imports every test file named on the command line into this one
 * process, where node:test runs their tests in order (as `--test-isolation=none` does on Node ≥
 * 22.8, and on Node 20 too). Files share loaded modules, the V8 heap and the process start, which a
 * process per file pays again each time. A file must leave the process as it found it (its
 * environment variables, servers and timers). A file that fails to load is named, the shard fails,
 * and the other files still run.
 */
for (const file of process.argv.slice(2)) {
  try {
    await import(file);
  } catch (e) {
    process.exitCode = 1;
    console.error(`✖ ${file} failed to load: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  }
}

export {};
