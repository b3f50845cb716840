import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SnowdbError } from '../../src/errors.js';
import { localStore } from '../../src/io/store.js';
import { type IndexEntry, indexGeoJson, readIndex } from '../../src/pourpoints/index-file.js';
import { tempDir } from '../helpers/cli.js';

// biome-ignore lint/suspicious/noExplicitAny: a parsed index, mutated field by field
type Json = Record<string, any>;

const ENTRIES: IndexEntry[] = [
  {
    triplet: 'A:UT:TEST',
    name: 'A',
    point: [-113, 37.2],
    outlet: true,
    declaredAreaM2: 2.5e9,
    outletOutsideM: 0,
    areaMeters: 2.4e9,
    geometryHash: 'a'.repeat(64),
    basinBbox: [-113.5, 37, -112.8, 37.6],
    coverage: { snodas: 'full', swann: 'partial' },
  },
  {
    triplet: 'B:UT:TEST',
    name: 'B',
    point: [-112, 38],
    outlet: false,
    declaredAreaM2: null,
    outletOutsideM: null,
    areaMeters: 0,
    geometryHash: '0123456789abcdef'.repeat(4),
    basinBbox: [-112.1, 37.9, -111.9, 38.1],
    coverage: {},
  },
];

describe('pourpoint index file', () => {
  it('reads what it wrote, and refuses every field the schema refuses, naming it', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const file = join(dir, 'index.geojson');
      const good = indexGeoJson(ENTRIES);
      await writeFile(file, JSON.stringify(good));
      assert.deepEqual([...(await readIndex(localStore, file)).values()], ENTRIES);
      // A key the schema does not know is left out, as the schema strips it.
      const extra = structuredClone(good) as { features: { properties: Record<string, unknown> }[] };
      extra.features[0]!.properties.note = 'x';
      await writeFile(file, JSON.stringify(extra));
      assert.deepEqual([...(await readIndex(localStore, file)).values()], ENTRIES);
      // Each mutation breaks one field of the first feature: the fast check must not accept any.
      const broken: [string, (f: Json) => void][] = [
        ['type', (f) => (f.type = 'Feature2')],
        ['id', (f) => (f.id = 7)],
        ['geometry.type', (f) => (f.geometry.type = 'Polygon')],
        ['geometry.coordinates', (f) => f.geometry.coordinates.push(1)],
        ['geometry.coordinates.0', (f) => (f.geometry.coordinates[0] = '1')],
        ['properties.name', (f) => (f.properties.name = null)],
        ['properties.area_meters', (f) => (f.properties.area_meters = -1)],
        ['properties.geometry_hash', (f) => (f.properties.geometry_hash = 'A'.repeat(64))],
        ['properties.basin_bbox.3', (f) => f.properties.basin_bbox.pop()],
        ['properties.coverage.snodas', (f) => (f.properties.coverage.snodas = 'most')],
        ['properties.coverage', (f) => (f.properties.coverage = [])],
        ['properties.outlet', (f) => (f.properties.outlet = 'yes')],
        ['properties.declared_area_m2', (f) => (f.properties.declared_area_m2 = 0)],
        ['properties.outlet_outside_m', (f) => (f.properties.outlet_outside_m = -3)],
      ];
      for (const [where, mutate] of broken) {
        const bad = structuredClone(good) as { features: Json[] };
        mutate(bad.features[0]!);
        await writeFile(file, JSON.stringify(bad));
        await assert.rejects(
          readIndex(localStore, file),
          (e: unknown) =>
            e instanceof SnowdbError &&
            e.message.startsWith(`${file} is not a pourpoint index at features.0.${where}:`) &&
            e.message.endsWith("; run 'snowdb pourpoint reindex'"),
          where,
        );
      }
      await writeFile(file, '{"type": "FeatureCollection", "features": [');
      await assert.rejects(readIndex(localStore, file), /is not valid JSON/);
    } finally {
      await cleanup();
    }
  });
});
