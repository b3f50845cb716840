#!/usr/bin/env node
// `--version` answers before the command tree (and every domain module) loads.
const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = await import('../version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  const { runCli } = await import('./program.js');
  process.exitCode = await runCli(args, { stdout: process.stdout, stderr: process.stderr }, process.env);
}
