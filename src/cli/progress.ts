import type { Output } from './output.js';

const WIDTH = 24;

/**
 * A progress callback `(done, total)` that redraws one bar on stderr. It draws only on a
 * terminal and without --quiet, so piped output and logs stay clean.
 */
export function progressBar(out: Output, label: string): (done: number, total: number) => void {
  if (!out.stderrIsTty || out.quiet) return () => {};
  let last = -1;
  return (done, total) => {
    const filled = total === 0 ? WIDTH : Math.round((done / total) * WIDTH);
    if (filled === last && done !== total) return;
    last = filled;
    const bar = `${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}`;
    out.raw(`\r${label} [${bar}] ${done}/${total}${done === total ? '\n' : ''}`);
  };
}
