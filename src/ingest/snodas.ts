import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { VariableSpec } from '../datasets/config.js';
import { SnowdbError } from '../errors.js';
import { decodeSnodasProduct, snodasProducts } from '../formats/snodas.js';
import { readTar } from '../formats/tar.js';
import { withScratch } from '../util/scratch.js';
import type { DateSource, Ingester } from './types.js';

/** Bytes of one masked SNODAS grid (6935 × 3351 int16). */
const SNODAS_GRID_BYTES = 6935 * 3351 * 2;

/** Header unit names → multiplier into a template unit. */
const UNIT_FACTORS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  meters: { mm: 1000 },
  'kilograms per square meter': { kg_per_m2: 1 },
  kelvins: { k: 1 },
};

/** Median of the valid (≠ nodata) values of a sample of cells. */
function validMedian(a: Int16Array, nodata: number): number {
  const sample: number[] = [];
  for (let i = 0; i < a.length; i += 997) if (a[i] !== nodata) sample.push(a[i]!);
  sample.sort((x, y) => x - y);
  return sample.length ? sample[sample.length >> 1]! : Number.NaN;
}

/**
 * Bring raw header-unit integers to the template's stored units (value = stored / scale_factor):
 * stored = raw × factor(unit) × scale_factor / divisor. For every SNODAS product and the header
 * divisors NOHRSC writes, the multiplier is 1 and the data are kept as they are; otherwise
 * `raw` is converted in place.
 *
 * Snowpack temperature: the header says `Kelvins` with no divisor, yet snowtool reports raw values
 * of 2636–2731 (tenths of K) while NSIDC's table says whole K. The values decide: a median above
 * 1000 means tenths of K (divisor 10), else whole K; the choice is recorded (SOURCE_UNITS_RULE).
 */
export function toStoredUnits(
  raw: Int16Array,
  units: string,
  divisor: number,
  spec: VariableSpec,
  where: string,
): { data: Int16Array; rule: string } {
  const name = units.split('/')[0]!.trim().toLowerCase();
  const factor = UNIT_FACTORS[name]?.[spec.unit];
  if (factor === undefined)
    throw new SnowdbError(
      'invalid-source',
      `${where}: data units '${units}' cannot be stored as ${spec.unit}`,
    );
  let div = divisor;
  let rule = `units '${units}'`;
  if (name === 'kelvins' && !units.includes('/')) {
    const m = validMedian(raw, spec.nodata);
    div = m > 1000 ? 10 : 1;
    rule = `units 'Kelvins' without divisor; median raw value ${m} → divisor ${div}`;
  }
  const mult = (factor * spec.scale_factor) / div;
  if (Math.abs(mult - 1) < 1e-12) return { data: raw, rule };
  const out = raw; // in place: the decoded grid is this call's to change (a fresh grid costs its page faults)
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i]!;
    if (v === spec.nodata) {
      out[i] = v;
      continue;
    }
    const s = Math.round(v * mult);
    if (s < -32768 || s > 32767 || s === spec.nodata)
      throw new SnowdbError('invalid-source', `${where}: value ${v} × ${mult} does not fit int16`);
    out[i] = s;
  }
  return { data: out, rule: `${rule}; stored = raw × ${mult}` };
}

/** SNODAS daily tars: one date per tar, eight products. */
export const snodasIngester: Ingester = {
  filePattern: /\.tar$/i,
  recursive: false,
  filesPerDate: 'one',
  async plan(files) {
    const out: DateSource[] = [];
    for (const f of files) {
      const { date } = snodasProducts(readTar(await readFile(f), f), f);
      out.push({ date, files: [f], fields: { SOURCE_ARCHIVE: basename(f) }, rank: 0 });
    }
    return out;
  },
  async decode(d, src, emit) {
    const file = src.files[0]!;
    const { products } = snodasProducts(readTar(await readFile(file), file), file);
    for (const p of products) {
      const spec = d.config.variables[p.variable];
      if (spec === undefined) continue;
      // The grid is inflated into a borrowed buffer: emit writes its COG and keeps nothing.
      await withScratch(SNODAS_GRID_BYTES, async (buf) => {
        const { grid, data } = await decodeSnodasProduct(p, file, buf);
        const { data: stored, rule } = toStoredUnits(
          data,
          grid.units,
          grid.divisor,
          spec,
          `${file}: ${p.header.name}`,
        );
        await emit(p.variable, stored, {
          SOURCE_FILES: `${basename(file)}:${p.data.name}`,
          SOURCE_STEM: p.stem,
          SOURCE_BOUNDS: grid.bounds,
          SOURCE_LATTICE: grid.lattice,
          SOURCE_UNITS_RULE: rule,
        });
      });
    }
  },
};
