import { SnowdbError } from '../errors.js';

export type Format = 'json' | 'csv';

const OFFERED: readonly [Format, string][] = [
  ['json', 'application/json'],
  ['csv', 'text/csv'],
];

/** Specificity of a media range against a type: 3 exact, 2 `type/*`, 1 `* /*`, 0 none. */
function matches(range: string, type: string): number {
  if (range === type) return 3;
  const [main] = type.split('/');
  if (range === `${main}/*`) return 2;
  return range === '*/*' ? 1 : 0;
}

/**
 * The response format: `f` wins; else the Accept header (q-values honoured, the most specific
 * matching range decides each type's q, ties go to JSON); no header = JSON.
 * @throws SnowdbError `not-acceptable` (406) when Accept names nothing on offer.
 */
export function negotiate(f: Format | undefined, accept: string | undefined): Format {
  if (f !== undefined) return f;
  if (accept === undefined || accept.trim() === '') return 'json';
  const ranges = accept.split(',').map((part) => {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return { range: range!.trim(), q: q === undefined ? 1 : Number(q.slice(2)) };
  });
  let best: Format | null = null;
  let bestQ = 0;
  for (const [format, type] of OFFERED) {
    let spec = 0;
    let q = 0;
    for (const r of ranges) {
      const m = matches(r.range, type);
      if (m > spec) {
        spec = m;
        q = Number.isFinite(r.q) ? r.q : 0;
      }
    }
    if (q > bestQ) {
      best = format;
      bestQ = q;
    }
  }
  if (best === null) {
    throw new SnowdbError(
      'not-acceptable',
      `nothing on offer matches Accept: ${accept}; offered: ${OFFERED.map(([, t]) => t).join(', ')}`,
    );
  }
  return best;
}
