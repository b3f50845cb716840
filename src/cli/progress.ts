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

/** Seconds as `1h02m`, `3m05s` or `42s`. */
function duration(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const t = Math.round(s);
  if (t >= 3600) return `${Math.floor(t / 3600)}h${String(Math.floor((t % 3600) / 60)).padStart(2, '0')}m`;
  if (t >= 60) return `${Math.floor(t / 60)}m${String(t % 60).padStart(2, '0')}s`;
  return `${t}s`;
}

/** A settled date, as `fetchProgress` hears it. */
interface SettledDate {
  readonly date: string;
  readonly action: string;
  readonly bytes: number;
  readonly message?: string;
}

/**
 * Progress of a fetch: on a terminal one line redrawn (dates done/total, MB, rate, ETA); otherwise
 * one line per date settled. Nothing with --quiet.
 */
export function fetchProgress(
  out: Output,
  label: string,
): {
  onPlanned: (n: number) => void;
  onBytes: (n: number) => void;
  onDate: (r: SettledDate) => void;
} {
  const t0 = Date.now();
  let total = 0;
  let done = 0;
  let bytes = 0;
  let drawn = 0;
  let planned = false;
  const draw = (force: boolean) => {
    if (!force && Date.now() - drawn < 200) return;
    drawn = Date.now();
    const secs = (Date.now() - t0) / 1000;
    const rate = bytes / 1e6 / Math.max(secs, 1e-3);
    const eta = done === 0 ? Number.NaN : (secs / done) * (total - done);
    const filled = total === 0 ? WIDTH : Math.round((done / total) * WIDTH);
    out.raw(
      `\r${label} fetch [${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${done}/${total} dates, ${(bytes / 1e6).toFixed(1)} MB, ${rate.toFixed(1)} MB/s, ETA ${duration(eta)}   ${done === total ? '\n' : ''}`,
    );
  };
  const tty = out.stderrIsTty && !out.quiet;
  return {
    onPlanned: (n) => {
      planned = true;
      total = n;
      if (tty && n > 0) draw(true);
    },
    onBytes: (n) => {
      bytes += n;
      if (tty) draw(false);
    },
    onDate: (r) => {
      if (r.action === 'would-fetch' || (r.action === 'up-to-date' && !planned)) return;
      if (planned) done++;
      if (tty) {
        if (planned) draw(true);
        return;
      }
      out.info(
        `${label} ${r.date} ${r.action}${r.bytes > 0 ? ` ${(r.bytes / 1e6).toFixed(1)} MB` : ''}${r.message ? `: ${r.message}` : ''}`,
      );
    },
  };
}
