#!/usr/bin/env node
// `--version` answers before the command tree (and every domain module) loads.
const args = process.argv.slice(2);
// A reader that stops early (`| head`) is not an error: stop quietly, as other tools do.
// Output that cannot be written (a full disk) is an error naming it, not a crash.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  process.stderr.write(`Error: cannot write the output (${e.code ?? e.message}): ${e.message}\n`);
  process.exit(1);
});
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = await import('../version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  const { runCli } = await import('./program.js');
  process.exitCode = await runCli(args, { stdout: process.stdout, stderr: process.stderr }, process.env);
}
