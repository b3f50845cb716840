import { open } from 'node:fs/promises';
import type H5wasm from 'h5wasm/node';
import { SnowdbError } from '../errors.js';

/** The 8 bytes every HDF5 file (NetCDF-4 included) starts with. */
const HDF5_SIGNATURE = Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);

type H5 = typeof H5wasm;
/** The wasm module under h5wasm's classes (its heap, allocator and the C-level readers). */
type H5Module = Awaited<H5['ready']>;
let loaded: Promise<H5> | undefined;
/**
 * The HDF5 library, loaded on first use (a command that reads no NetCDF does not pay for it), with
 * its error stack turned into exceptions: h5wasm's own readers ignore the library's status, so a
 * chunk that fails its filter pipeline would otherwise read as a stale buffer.
 */
export const hdf5Library = (): Promise<H5> =>
  (loaded ??= import('h5wasm/node').then(async ({ default: h5 }) => {
    (await h5.ready).activate_throwing_error_handler();
    return h5;
  }));

/** The innermost line of an HDF5 error stack (`… in H5Z_pipeline(): filter returned failure…`). */
export function hdf5Cause(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  const lines = [...text.matchAll(/#\d+: .* in \w+\(\): (.+)$/gm)].map((m) => m[1]!);
  return lines.at(-1) ?? text.split('\n')[0]!;
}

/** Typed-array constructors by HDF5 class (0 integer, 1 float), byte size and signedness. */
const NUMERIC: Readonly<Record<string, new (b: ArrayBuffer, at: number, n: number) => ArrayBufferView>> = {
  '0 1 true': Int8Array,
  '0 1 false': Uint8Array,
  '0 2 true': Int16Array,
  '0 2 false': Uint16Array,
  '0 4 true': Int32Array,
  '0 4 false': Uint32Array,
  '1 4 true': Float32Array,
  '1 4 false': Float32Array,
  '1 8 true': Float64Array,
  '1 8 false': Float64Array,
};

/**
 * A numeric variable's values, as h5wasm's `value` gives them, copied out of the wasm heap into
 * `into` (the start of it): h5wasm's own copy goes to fresh memory, whose first touch costs
 * ~10× the copy on the VMs measured (util/scratch.ts). Undefined for any other type (strings,
 * compounds, 64-bit integers), or when `into` is too small: `value` reads those.
 */
function valuesInto(d: InstanceType<H5['Dataset']>, m: H5Module, into: Buffer): ArrayBufferView | undefined {
  const md = d.metadata;
  const Ctor = NUMERIC[`${md.type} ${md.size} ${md.signed}`];
  const bytes = md.size * md.total_size;
  if (!md.shape || md.vlen || !Ctor || bytes > into.length || into.byteOffset % md.size !== 0)
    return undefined;
  const ptr = m._malloc(bytes);
  if (ptr === 0) throw new Error(`HDF5 heap: ${bytes} bytes could not be allocated`);
  try {
    m.get_dataset_data(d.file_id, d.path, null, null, null, BigInt(ptr));
    into.set(m.HEAPU8.subarray(ptr, ptr + bytes));
  } finally {
    m._free(ptr);
  }
  return new Ctor(into.buffer as ArrayBuffer, into.byteOffset, md.total_size);
}

/** A NetCDF-4 (HDF5) file opened read-only through h5wasm; close it when done. */
export class Hdf5File {
  private constructor(
    readonly path: string,
    private readonly file: InstanceType<H5['File']>,
    private readonly h5: H5,
    private readonly module: H5Module,
  ) {}

  /** @throws SnowdbError `invalid-source` when the file is not HDF5/NetCDF-4. */
  static async open(path: string): Promise<Hdf5File> {
    const head = Buffer.alloc(8);
    const fh = await open(path, 'r');
    try {
      await fh.read(head, 0, 8, 0);
    } finally {
      await fh.close();
    }
    if (!head.equals(HDF5_SIGNATURE)) {
      const classic = head.subarray(0, 3).toString('latin1') === 'CDF';
      throw new SnowdbError(
        'invalid-source',
        `${path}: not a NetCDF-4/HDF5 file${classic ? ' (it is NetCDF classic)' : ' (no HDF5 signature)'}`,
      );
    }
    const h5 = await hdf5Library();
    try {
      return new Hdf5File(path, new h5.File(path, 'r'), h5, await h5.ready);
    } catch (e) {
      throw new SnowdbError('invalid-source', `${path}: not a readable NetCDF-4/HDF5 file (${hdf5Cause(e)})`);
    }
  }

  private dataset(name: string): InstanceType<H5['Dataset']> {
    let d: unknown;
    try {
      d = this.file.get(name);
    } catch (e) {
      throw new SnowdbError(
        'invalid-source',
        `${this.path}: variable '${name}' cannot be opened (${hdf5Cause(e)})`,
      );
    }
    if (!(d instanceof this.h5.Dataset))
      throw new SnowdbError('invalid-source', `${this.path}: no variable '${name}'`);
    return d;
  }

  /** Shape of a variable. */
  shape(name: string): number[] {
    return [...(this.dataset(name).shape ?? [])];
  }

  /** A numeric attribute pair such as `valid_range`, when the variable declares one. */
  range(name: string, attr = 'valid_range'): readonly [number, number] | undefined {
    const a = this.dataset(name).attrs[attr]?.value as unknown;
    if (!ArrayBuffer.isView(a)) return undefined;
    const v = Array.from(a as unknown as ArrayLike<number | bigint>, Number);
    return v.length === 2 && v.every(Number.isFinite) ? [v[0]!, v[1]!] : undefined;
  }

  /**
   * Refuse a variable stored packed (CF `scale_factor`/`add_offset` other than 1 and 0): SWANN
   * and SPIRES files store plain values, and reading packed integers as values would be wrong.
   * @throws SnowdbError `invalid-source` naming the variable and its packing.
   */
  requireUnpacked(name: string): void {
    const p = this.packing(name);
    if (p !== undefined)
      throw new SnowdbError(
        'invalid-source',
        `${this.path}: ${name} is packed (scale_factor ${p.scale}, add_offset ${p.offset}); the producers' files store plain values, and packed ones are not supported`,
      );
  }

  /** A variable's CF packing when it declares one other than 1 and 0. */
  private packing(name: string): { scale: number; offset: number } | undefined {
    const scale = this.scalar(name, 'scale_factor') ?? 1;
    const offset = this.scalar(name, 'add_offset') ?? 0;
    return scale === 1 && offset === 0 ? undefined : { scale, offset };
  }

  /**
   * A variable's values (row-major) and its `_FillValue`, if any; numeric values go into `into`
   * when given and large enough (they are then a view of it).
   */
  read(
    name: string,
    into?: Buffer,
  ): {
    values: ArrayLike<number> & { length: number };
    fill: number | undefined;
    dtype: string;
  } {
    const d = this.dataset(name);
    let v: unknown;
    try {
      v = (into && valuesInto(d, this.module, into)) ?? d.value;
    } catch (e) {
      // A corrupted or truncated chunk fails here (deflate or checksum filter), never as garbage.
      throw new SnowdbError(
        'invalid-source',
        `${this.path}: variable '${name}' cannot be read (${hdf5Cause(e)})`,
      );
    }
    if (!ArrayBuffer.isView(v))
      throw new SnowdbError('invalid-source', `${this.path}: variable '${name}' is not numeric`);
    const fill = this.scalar(name, '_FillValue');
    return { values: v as unknown as ArrayLike<number> & { length: number }, fill, dtype: String(d.dtype) };
  }

  /** A numeric attribute's (first) value, when the variable has it. */
  private scalar(name: string, attr: string): number | undefined {
    const a = this.dataset(name).attrs[attr]?.value as unknown;
    if (ArrayBuffer.isView(a)) return Number((a as unknown as ArrayLike<number | bigint>)[0]);
    return typeof a === 'number' ? a : undefined;
  }

  close(): void {
    this.file.close();
  }
}
