/**
 * The import graph of `src/` and the rules it keeps (ARCHITECTURE.md, "Layers"): every import
 * points down the stated order, siblings of one rank do not import each other, and no files
 * import each other in a cycle.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/** The layers, lowest first; a file may import its own folder and any lower rank. */
export const LAYERS: readonly (readonly string[])[] = [
  ['errors.ts', 'env.ts', 'version.ts', 'util'],
  ['io', 'queue'],
  ['raster'],
  ['formats'],
  ['db'],
  ['pourpoints'],
  ['datasets'],
  ['series'],
  ['ingest', 'zones'],
  ['stats', 'fetch'],
  ['stations', 'export'],
  ['app'],
  ['api'],
  ['cli'],
];

/** One import of one file: `from` and `to` relative to src/, with the line it stands on. */
export interface Edge {
  readonly from: string;
  readonly to: string;
  readonly line: number;
  readonly text: string;
}

/** The unit of a src-relative path: its top folder, or the file itself at the top. */
export const unitOf = (path: string): string => path.split('/')[0]!;

const rank = (unit: string): number => LAYERS.findIndex((l) => l.includes(unit));

// Static imports and re-exports (`import … from '…'`, `export … from '…'`, `import '…'`) and
// dynamic `import('…')`; the specifier is relative for every src file.
const IMPORT =
  /(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** Every relative import of the TypeScript files under `srcDir` (paths relative to it, `.ts`). */
export function importsOf(srcDir: string): Edge[] {
  const files = (readdirSync(srcDir, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const edges: Edge[] = [];
  for (const file of files) {
    const text = readFileSync(join(srcDir, file), 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3]!;
      if (!spec.startsWith('.')) continue;
      const to = normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts');
      const line = text.slice(0, m.index + m[0].search(/\S/)).split('\n').length;
      edges.push({ from: file, to, line, text: m[0].trim() });
    }
  }
  return edges;
}

/** Why an edge breaks the order, or null when it keeps it. */
export function orderViolation(e: Edge): string | null {
  const a = unitOf(e.from);
  const b = unitOf(e.to);
  if (a === b) return null;
  const ra = rank(a);
  const rb = rank(b);
  if (ra < 0) return `src/${e.from}: '${a}' is in no layer of LAYERS (test/architecture/imports.ts)`;
  if (rb < 0) return `src/${e.from}:${e.line} imports src/${e.to}, which is in no layer`;
  if (rb < ra) return null;
  const why = rb === ra ? `'${b}' is a sibling of '${a}'` : `'${b}' is above '${a}'`;
  return `src/${e.from}:${e.line} imports src/${e.to} (${e.text}): ${why} in the layer order`;
}

/** Import cycles between files (each as its files, the smallest first), from Tarjan's SCCs. */
export function cyclesOf(edges: readonly Edge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  let i = 0;
  const visit = (v: string): void => {
    index.set(v, i);
    low.set(v, i++);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      const self = (next.get(v) ?? []).includes(v);
      if (scc.length > 1 || self) out.push(scc.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/** Every broken rule of a graph, one message each: order violations, then cycles. */
export function violations(edges: readonly Edge[]): string[] {
  return [
    ...edges.map(orderViolation).filter((m): m is string => m !== null),
    ...cyclesOf(edges).map((c) => `import cycle: ${c.map((f) => `src/${f}`).join(' -> ')}`),
  ];
}
