import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cyclesOf, type Edge, importsOf, LAYERS, unitOf, violations } from './imports.js';

/** The TypeScript sources (dist/test/architecture → repo/src). */
const SRC = fileURLToPath(new URL('../../../src', import.meta.url));

const edge = (from: string, to: string, line = 1): Edge => ({
  from,
  to,
  line,
  text: `import x from '${to}'`,
});

describe('the layer order of src/', () => {
  const edges = importsOf(SRC);

  it('reads the real import graph (sanity: known edges are there)', () => {
    assert.ok(existsSync(SRC), SRC);
    assert.ok(edges.length > 300, `only ${edges.length} imports found`);
    const has = (from: string, to: string) => edges.some((e) => e.from === from && e.to === to);
    assert.ok(has('stats/engine.ts', 'stats/plan.ts'));
    assert.ok(has('cli/commands/api.ts', 'api/app.ts'), 'a dynamic import() is read too');
    assert.ok(has('app/status.ts', 'app/health/checks.ts'));
  });

  it('every folder and top-level file of src/ is in a layer', () => {
    const units = new Set(edges.flatMap((e) => [unitOf(e.from), unitOf(e.to)]));
    const known = new Set(LAYERS.flat());
    assert.deepEqual(
      [...units].filter((u) => !known.has(u)),
      [],
    );
  });

  it('no import runs against the order, and no files import each other in a cycle', () => {
    assert.deepEqual(violations(edges), []);
  });

  it('a planted back edge fails, naming the file, the line and the import', () => {
    const planted = [
      edge('db/database.ts', 'io/memo.ts', 6),
      edge('db/database.ts', 'pourpoints/index-file.ts', 7),
    ];
    assert.deepEqual(violations(planted), [
      "src/db/database.ts:7 imports src/pourpoints/index-file.ts (import x from 'pourpoints/index-file.ts'): 'pourpoints' is above 'db' in the layer order",
    ]);
  });

  it('a planted sibling edge fails (ingest and zones share a rank and do not import each other)', () => {
    const [m] = violations([edge('zones/plan.ts', 'ingest/date.ts')]);
    assert.match(m!, /'ingest' is a sibling of 'zones'/);
  });

  it('a planted cycle inside one folder fails, naming its files', () => {
    const planted = [
      edge('ingest/run.ts', 'ingest/workers.ts'),
      edge('ingest/workers.ts', 'ingest/date.ts'),
      edge('ingest/date.ts', 'ingest/run.ts'),
      edge('ingest/worker.ts', 'ingest/workers.ts'),
    ];
    assert.deepEqual(violations(planted), [
      'import cycle: src/ingest/date.ts -> src/ingest/run.ts -> src/ingest/workers.ts',
    ]);
    assert.deepEqual(cyclesOf([edge('a/x.ts', 'a/x.ts')]), [['a/x.ts']]);
  });
});
