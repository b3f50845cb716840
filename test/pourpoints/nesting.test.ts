/**
 * Nesting (pourpoints/nesting.ts) and the intervening area (stats/intervening.ts), on a copy of
 * the snow-cover database: basins drawn inside its basin (one sharing its west edge, one with a
 * basin inside it, a neighbour half outside) nest as drawn, up and down, in `pourpoint show` and
 * `/pourpoints/{id}`; the basin less its children answers areas and totals that are the basin's
 * less its children's, date by date. A HUC-like tessellation (bench/fixture/tessellation.ts: HUC12s
 * that tile HUC10s that tile HUC8s, each record naming its parent) nests exactly as it was built.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tessellate } from '../../bench/fixture/tessellation.js';
import { buildApp } from '../../src/api/app.js';
import { Database } from '../../src/db/database.js';
import { nestingAround } from '../../src/pourpoints/nesting.js';
import { parseDateRange } from '../../src/stats/dates.js';
import { planIntervening } from '../../src/stats/intervening.js';
import { planInputs } from '../../src/stats/plan.js';
import { snowdb, tempDir } from '../helpers/cli.js';
import { BASIN, copyCoverDb } from '../helpers/cover-db.js';
import { snapshotTree } from '../helpers/fs.js';
import { oracle } from '../helpers/gdal.js';
import { assertCellsMatch, gridSpec } from '../helpers/raster.js';

interface Body {
  zones: { area_m2: number }[];
  variables: string[];
  results: Record<string, (number | null)[][]>;
}

describe('nesting: basins inside basins, and the area between them', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let env: Record<string, string>;
  before(async () => {
    ({ dir, cleanup } = await tempDir());
    await copyCoverDb(dir);
    env = { SNOWDB_CONFIG: join(dir, 'db') };
    const record = JSON.parse(
      await readFile(join(dir, 'db/pourpoints', `${BASIN.replaceAll(':', '_')}.geojson`), 'utf8'),
    );
    const ring = record.geometries.find((g: { type: string }) => g.type !== 'Point')
      .coordinates[0][0] as number[][];
    const [w, s, e, n] = [
      Math.min(...ring.map((p) => p[0]!)),
      Math.min(...ring.map((p) => p[1]!)),
      Math.max(...ring.map((p) => p[0]!)),
      Math.max(...ring.map((p) => p[1]!)),
    ];
    const dx = e - w;
    const dy = n - s;
    const box = (x0: number, y0: number, x1: number, y1: number) => ({
      type: 'Polygon',
      coordinates: [
        [
          [x0, y0],
          [x1, y0],
          [x1, y1],
          [x0, y1],
          [x0, y0],
        ],
      ],
    });
    const features = [
      ['a', box(w, s + 0.1 * dy, w + 0.45 * dx, n - 0.1 * dy)], // shares the basin's west edge
      ['b', box(w + 0.55 * dx, s + 0.1 * dy, e - 0.1 * dx, n - 0.1 * dy)],
      ['c', box(w + 0.1 * dx, s + 0.3 * dy, w + 0.3 * dx, s + 0.6 * dy)], // inside a
      ['n', box(e - 0.2 * dx, s + 0.2 * dy, e + 0.3 * dx, n - 0.2 * dy)], // 40 % inside: a neighbour
    ].map(([id, geometry]) => ({ type: 'Feature', properties: { id }, geometry }));
    const file = join(dir, 'inner.geojson');
    await writeFile(file, JSON.stringify({ type: 'FeatureCollection', features }));
    const r = await snowdb(['pourpoint', 'import', file, '--set', 'huc', '--id-field', 'id'], { env });
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => cleanup());
  const show = async (id: string) => {
    const r = await snowdb(['pourpoint', 'show', id, '--format', 'json'], { env });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as { parents: string[]; children: string[] };
  };

  it('parents and children from the polygons, up and down, in show and /pourpoints/{id}', async () => {
    const basin = await show(BASIN);
    assert.deepEqual([basin.parents, basin.children], [[], ['huc:a', 'huc:b']]);
    const c = await show('huc:c');
    assert.deepEqual([c.parents, c.children], [['huc:a', BASIN], []]);
    const a = await show('huc:a');
    assert.deepEqual([a.parents, a.children], [[BASIN], ['huc:c']]);
    const neighbour = await show('huc:n');
    assert.deepEqual([neighbour.parents, neighbour.children], [[], []]);
    const app = await buildApp(await Database.open(env.SNOWDB_CONFIG!));
    try {
      const r = await app.inject({ method: 'GET', url: '/pourpoints/huc:a' });
      assert.equal(r.statusCode, 200);
      const p = r.json().properties;
      assert.deepEqual([p.parents, p.children, p.outlet], [[BASIN], ['huc:c'], false]);
    } finally {
      await app.close();
    }
    const table = await snowdb(['pourpoint', 'show', 'huc:c'], { env });
    assert.match(table.stdout, /^inside\s+huc:a, LINE:UT:TEST$/m);
  });

  it('groups: the union answers as a basin (overlaps once, OGR’s union), listed, and a basin index over the members', async () => {
    const cli = async (...args: string[]) => {
      const r = await snowdb(args, { env });
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trimEnd();
    };
    const stats = async (...args: string[]) => JSON.parse(await cli('stats', 'cover', ...args)) as Body;
    assert.equal(await cli('group', 'create', 'east', 'huc:n', 'huc:b'), 'group:east: huc:b, huc:n');
    await cli('group', 'create', 'west', 'huc:a', 'huc:c'); // c lies inside a: the union is a
    const area = (b: Body) => b.zones.reduce((t, z) => t + z.area_m2, 0);
    const west = await stats('group:west');
    const a = await stats('huc:a');
    assert.ok(Math.abs(area(west) / area(a) - 1) < 1e-9, `${area(west)} vs ${area(a)}`);
    // The east group's union, as OGR makes it, drawn: the same area, the same values.
    const polygon = async (id: string) => {
      const f = JSON.parse(
        await readFile(join(dir, 'db/pourpoints', `${id.replace(':', '_')}.geojson`), 'utf8'),
      );
      const p = join(dir, `${id.replace(':', '_')}.json`);
      await writeFile(p, JSON.stringify(f.geometry));
      return p;
    };
    const ogrUnion = await oracle<object>('union', await polygon('huc:b'), await polygon('huc:n'));
    const unionFile = join(dir, 'union.json');
    await writeFile(unionFile, JSON.stringify(ogrUnion));
    const [east, drawn, b, n] = [
      await stats('group:east'),
      await stats('--area', unionFile),
      await stats('huc:b'),
      await stats('huc:n'),
    ];
    assert.ok(Math.abs(area(east) / area(drawn) - 1) < 1e-9, `${area(east)} vs OGR's union ${area(drawn)}`);
    assert.ok(area(east) < area(b) + area(n) - 0.01 * area(n), 'the overlap counted once');
    // Cell by cell: the union's weights are OGR's intersections of each cell with OGR's union.
    const inputs = await planInputs(await Database.open(env.SNOWDB_CONFIG!), 'cover', 'group:east');
    const jobs = join(dir, 'union-jobs.json');
    await writeFile(
      jobs,
      JSON.stringify([
        { geojson: unionFile, grid: { ...gridSpec(inputs.dataset.grid), window: inputs.drawn!.window } },
      ]),
    );
    const [cells] = await oracle<[number, number, number][][]>('cell-sets', jobs);
    assert.ok(assertCellsMatch('group:east', inputs.drawn!.weights, cells!) > 50);
    const t = east.variables.indexOf('total_snow_fraction_m2');
    for (const d of Object.keys(east.results))
      assert.ok(
        Math.abs((east.results[d]![0]![t] as number) - (drawn.results[d]![0]![t] as number)) <=
          1e-9 * area(east),
        d,
      );
    assert.match(await cli('group', 'list'), /^group:east\thuc:b, huc:n\ngroup:west\thuc:a, huc:c$/);
    const exists = await snowdb(['group', 'create', 'east', 'huc:a', 'huc:b'], { env });
    assert.equal(exists.code, 2);
    assert.match(exists.stderr, /group 'east' exists \(huc:b, huc:n\); give --replace/);
    const unknown = await snowdb(['group', 'create', 'x', 'huc:a', 'huc:zz'], { env });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no pourpoint huc:zz in the index/);
    // The basin index: 100 × Σ members' means ÷ Σ their medians, date by date.
    await cli('group', 'create', 'ab', 'huc:a', 'huc:b');
    const index = JSON.parse(await cli('group', 'index', 'cover', 'ab', '--variable', 'snow_fraction')) as {
      variables: string[];
      results: Record<string, (number | null)[]>;
    };
    assert.deepEqual(index.variables, [
      'basin_index_pct',
      'sum_mean_snow_fraction_percent',
      'sum_median_mean_snow_fraction_percent',
      'members',
    ]);
    const own = await Promise.all(
      ['huc:a', 'huc:b'].map((m) => stats(m, '--variable', 'snow_fraction', '--with-normals')),
    );
    let checked = 0;
    for (const [d, row] of Object.entries(index.results)) {
      const v = (x: Body, name: string) => x.results[d]![0]![x.variables.indexOf(name)] as number | null;
      const pairs = own.map((x) => [
        v(x, 'mean_snow_fraction_percent'),
        v(x, 'median_mean_snow_fraction_percent'),
      ]);
      const both = pairs.filter(([x, m]) => x !== null && m !== null) as [number, number][];
      const sum = both.reduce((s, [x]) => s + x, 0);
      const med = both.reduce((s, [, m]) => s + m, 0);
      assert.equal(row[3], both.length, d);
      if (both.length === 0) continue;
      assert.ok(
        Math.abs(row[0]! - (100 * sum) / med) < 1e-9 * row[0]!,
        `${d}: ${row[0]} vs ${(100 * sum) / med}`,
      );
      checked++;
    }
    assert.ok(checked >= 3, `${checked} dates with an index`);
    const app = await buildApp(await Database.open(env.SNOWDB_CONFIG!));
    try {
      const list = await app.inject({ method: 'GET', url: '/groups' });
      assert.deepEqual(
        list.json().groups.map((g: { id: string }) => g.id),
        ['group:ab', 'group:east', 'group:west'],
      );
      const r = await app.inject({
        method: 'GET',
        url: '/datasets/cover/groups/ab/basin-index?datetime=../..&variable=snow_fraction',
      });
      assert.equal(r.statusCode, 200, r.body);
      assert.deepEqual(r.json().results, index.results);
      const s = await app.inject({
        method: 'GET',
        url: '/datasets/cover/stats/group:east/date-range?datetime=../..',
      });
      assert.deepEqual((s.json() as Body).results, east.results);
    } finally {
      await app.close();
    }
  });

  it('--minus-children: areas and snow-covered areas are the basin’s less its children’s, date by date', async () => {
    const stats = async (...args: string[]) => {
      const r = await snowdb(['stats', 'cover', ...args], { env });
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout) as Body;
    };
    const [between, whole, a, b] = [
      await stats(BASIN, '--minus-children'),
      await stats(BASIN),
      await stats('huc:a'),
      await stats('huc:b'),
    ];
    const near = (x: number, y: number) => Math.abs(x - y) <= 1e-9 * whole.zones[0]!.area_m2;
    const area = whole.zones[0]!.area_m2 - a.zones[0]!.area_m2 - b.zones[0]!.area_m2;
    assert.ok(near(between.zones[0]!.area_m2, area), `${between.zones[0]!.area_m2} vs ${area}`);
    assert.ok(area > 0.2 * whole.zones[0]!.area_m2);
    // Cell by cell: the basin's weights less its children's are OGR's cells of the basin less them.
    const geometry = async (
      file: string,
      pick: (doc: { type: string; geometry?: unknown; geometries?: { type: string }[] }) => unknown,
    ) => {
      const doc = JSON.parse(await readFile(join(dir, 'db/pourpoints', file), 'utf8'));
      const out = join(dir, `geometry-${file}`);
      await writeFile(out, JSON.stringify(pick(doc)));
      return out;
    };
    const rest = await oracle<object>(
      'difference',
      await geometry(`${BASIN.replaceAll(':', '_')}.geojson`, (d) =>
        d.geometries!.find((g) => g.type !== 'Point'),
      ),
      await geometry('huc_a.geojson', (d) => d.geometry),
      await geometry('huc_b.geojson', (d) => d.geometry),
    );
    const restFile = join(dir, 'rest.json');
    await writeFile(restFile, JSON.stringify(rest));
    const plan = await planIntervening(await Database.open(env.SNOWDB_CONFIG!), {
      dataset: 'cover',
      pourpoint: BASIN,
      dates: parseDateRange('../..'),
    });
    const jobs = join(dir, 'rest-jobs.json');
    await writeFile(
      jobs,
      JSON.stringify([
        { geojson: restFile, grid: { ...gridSpec(plan.dataset.grid), window: plan.drawn!.window } },
      ]),
    );
    const [cells] = await oracle<[number, number, number][][]>('cell-sets', jobs);
    assert.ok(assertCellsMatch(`${BASIN} less its children`, plan.drawn!.weights, cells!) > 100);
    const t = whole.variables.indexOf('total_snow_fraction_m2');
    assert.ok(t >= 0, whole.variables.join());
    let dates = 0;
    for (const d of Object.keys(whole.results)) {
      const v = (x: Body) => x.results[d]![0]![t] as number;
      assert.ok(near(v(between), v(whole) - v(a) - v(b)), `${d}: ${v(between)} vs ${v(whole) - v(a) - v(b)}`);
      dates++;
    }
    assert.ok(dates >= 6);
    const app = await buildApp(await Database.open(env.SNOWDB_CONFIG!));
    try {
      const r = await app.inject({
        method: 'GET',
        url: `/datasets/cover/stats/${BASIN}/date-range?datetime=../..&minus_children=true`,
      });
      assert.equal(r.statusCode, 200, r.body);
      assert.deepEqual((r.json() as Body).results, between.results);
      const none = await app.inject({
        method: 'GET',
        url: '/datasets/cover/stats/huc:c/date-range?datetime=../..&minus_children=true',
      });
      assert.equal(none.statusCode, 422);
      assert.match(none.json().detail, /no basin lies inside huc:c: it has no intervening area/);
    } finally {
      await app.close();
    }
  });

  it('removing a group member is refused without --force naming the groups; with it the groups shrink, and doctor checks groups', async () => {
    const groupsFile = join(env.SNOWDB_CONFIG!, 'pourpoints/groups.json');
    const before = await snapshotTree(env.SNOWDB_CONFIG!);
    const refused = await snowdb(['pourpoint', 'remove', 'huc:b'], { env });
    assert.equal(refused.code, 2);
    assert.match(
      refused.stderr,
      /group:ab, group:east hold huc:b; give --force to remove it \(group:ab loses huc:b \(removed: 1 member left\); group:east loses huc:b \(removed: 1 member left\)\)/,
    );
    assert.deepEqual(await snapshotTree(env.SNOWDB_CONFIG!), before);
    // A groups file naming a basin the index lacks (as a removal used to leave it): doctor fails on it.
    const good = await readFile(groupsFile, 'utf8');
    const bad = JSON.parse(good);
    bad.groups.west.members = ['huc:a', 'huc:gone'];
    await writeFile(groupsFile, JSON.stringify(bad));
    const doctor = await snowdb(['doctor', '--check', 'index'], { env });
    assert.equal(doctor.code, 1, doctor.stdout);
    assert.match(doctor.stdout, /group:west.*its member\(s\) huc:gone are not in the index/);
    await writeFile(groupsFile, good);
    const forced = await snowdb(['pourpoint', 'remove', 'huc:b', '--force'], { env });
    assert.equal(forced.code, 0, forced.stderr);
    assert.match(forced.stdout, /changed group:east loses huc:b \(removed: 1 member left\)/);
    const left = JSON.parse(await readFile(groupsFile, 'utf8')).groups;
    assert.deepEqual(Object.keys(left), ['west']);
    assert.deepEqual(left.west.members, ['huc:a', 'huc:c']);
    const ok = await snowdb(['doctor', '--check', 'index'], { env });
    assert.equal(ok.code, 0, ok.stdout);
    const west = await snowdb(['stats', 'cover', 'group:west', '--dates', '../..', '--format', 'json'], {
      env,
    });
    assert.equal(west.code, 0, west.stderr);
  });
});

describe('nesting: a HUC-like tessellation nests as it was built', () => {
  it('every HUC12 lies in its HUC10 and HUC8; each HUC10 and HUC8 holds exactly its own', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const levels = tessellate({ box: [-112, 40, -111, 41], basins: 60, step: 0.01, seed: 68 });
      const root = join(dir, 'db');
      assert.equal((await snowdb(['init', root])).code, 0);
      const env = { SNOWDB_CONFIG: root };
      for (const set of ['huc12', 'huc10', 'huc8'] as const) {
        const file = join(dir, `${set}.geojson`);
        await writeFile(file, JSON.stringify({ type: 'FeatureCollection', features: levels[set] }));
        const r = await snowdb(['pourpoint', 'import', file, '--set', set], { env });
        assert.equal(r.code, 0, r.stderr);
      }
      // What the generator built: each region is the union of the HUC12s under it, so one lies in
      // another when its HUC12s are a strict subset of the other's (a HUC10 that is one HUC12 is
      // that HUC12's twin: neither lies in the other, and both lie directly in their HUC8).
      const all = [...levels.huc12, ...levels.huc10, ...levels.huc8];
      const setOf = (id: string) => `huc${id.length}:${id}`;
      const leaves = new Map(all.map((f) => [f.id, new Set<string>()]));
      for (const f of levels.huc12)
        for (let p: string | null = f.id; p !== null; p = all.find((g) => g.id === p)!.properties.parent)
          leaves.get(p)!.add(f.id);
      const inside = (a: string, b: string) => {
        const [x, y] = [leaves.get(a)!, leaves.get(b)!];
        return x.size < y.size && [...x].every((l) => y.has(l));
      };
      const ids = all.map((f) => f.id);
      assert.ok(levels.huc8.length >= 2 && levels.huc10.length > levels.huc8.length, 'three real levels');
      assert.ok(
        levels.huc10.some((f) => leaves.get(f.id)!.size === 1),
        'a twin (a HUC10 of one HUC12) is among them',
      );
      const db = await Database.open(root);
      for (const a of ids) {
        const parents = ids.filter((b) => inside(a, b));
        parents.sort((b, c) => leaves.get(b)!.size - leaves.get(c)!.size);
        const children = ids.filter((c) => inside(c, a) && !ids.some((m) => inside(c, m) && inside(m, a)));
        assert.deepEqual(
          await nestingAround(db, setOf(a)),
          { parents: parents.map(setOf), children: children.map(setOf).sort() },
          a,
        );
      }
    } finally {
      await cleanup();
    }
  });
});
