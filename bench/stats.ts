/** Median of a list of numbers. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Run `fn` `runs` times (after `warmup` untimed runs) and return each duration in ms. */
export async function time(
  runs: number,
  fn: () => unknown | Promise<unknown>,
  warmup = 1,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

/** `median unit (min–max)` of a list. */
export function spread(xs: readonly number[], digits = 1, unit = 'ms'): string {
  const s = [...xs].sort((a, b) => a - b);
  const f = (x: number) => x.toFixed(digits);
  return `${f(median(s))} ${unit} (${f(s[0]!)}–${f(s.at(-1)!)})`;
}

/** Milliseconds `fn` takes. */
export async function elapsed(fn: () => unknown | Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/**
 * Time both sides `reps` times, interleaved (each run returns its own ms): the snowdb, baseline
 * and ratio cells of a results row.
 */
export async function interleave(
  reps: number,
  ours: () => Promise<number>,
  theirs: () => Promise<number>,
  digits = 1,
): Promise<{ snowdb: string; baseline: string; ratio: string }> {
  const s: number[] = [];
  const p: number[] = [];
  for (let i = 0; i < reps; i++) {
    s.push(await ours());
    p.push(await theirs());
  }
  return {
    snowdb: spread(s, digits),
    baseline: spread(p, digits),
    ratio: `${(median(p) / median(s)).toFixed(1)}×`,
  };
}
