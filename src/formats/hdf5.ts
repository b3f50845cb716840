import { open } from 'node:fs/promises';
import type H5wasm from 'h5wasm/node';
import { SnowdbError } from '../errors.js';

/** The 8 bytes every HDF5 file (NetCDF-4 included) starts with. */
const HDF5_SIGNATURE = Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);

type H5 = typeof H5wasm;
let loaded: Promise<H5> | undefined;
/**
 * The HDF5 library, loaded on first use (a command that reads no NetCDF does not pay for it), with
 * its error stack turned into exceptions: h5wasm's own readers ignore the library's status, so a
 * chunk that fails its filter pipeline would otherwise read as a stale buffer.
 */
const library = (): Promise<H5> =>
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

/** A NetCDF-4 (HDF5) file opened read-only through h5wasm; close it when done. */
export class Hdf5File {
  private constructor(
    readonly path: string,
    private readonly file: InstanceType<H5['File']>,
    private readonly h5: H5,
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
    const h5 = await library();
    try {
      return new Hdf5File(path, new h5.File(path, 'r'), h5);
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

  /** A variable's values (row-major) and its `_FillValue`, if any. */
  read(name: string): {
    values: ArrayLike<number> & { length: number };
    fill: number | undefined;
    dtype: string;
  } {
    const d = this.dataset(name);
    let v: unknown;
    try {
      v = d.value;
    } catch (e) {
      // A corrupted or truncated chunk fails here (deflate or checksum filter), never as garbage.
      throw new SnowdbError(
        'invalid-source',
        `${this.path}: variable '${name}' cannot be read (${hdf5Cause(e)})`,
      );
    }
    if (!ArrayBuffer.isView(v))
      throw new SnowdbError('invalid-source', `${this.path}: variable '${name}' is not numeric`);
    const fillAttr = d.attrs._FillValue?.value as unknown;
    const fill = ArrayBuffer.isView(fillAttr)
      ? Number((fillAttr as unknown as number[])[0])
      : typeof fillAttr === 'number'
        ? fillAttr
        : undefined;
    return { values: v as unknown as ArrayLike<number> & { length: number }, fill, dtype: String(d.dtype) };
  }

  close(): void {
    this.file.close();
  }
}
