import { open } from 'node:fs/promises';
import h5wasm from 'h5wasm/node';
import { SnowdbError } from '../errors.js';

/** The 8 bytes every HDF5 file (NetCDF-4 included) starts with. */
const HDF5_SIGNATURE = Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A NetCDF-4 (HDF5) file opened read-only through h5wasm; close it when done. */
export class Hdf5File {
  private constructor(
    readonly path: string,
    private readonly file: InstanceType<typeof h5wasm.File>,
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
    await h5wasm.ready;
    try {
      return new Hdf5File(path, new h5wasm.File(path, 'r'));
    } catch (e) {
      throw new SnowdbError('invalid-source', `${path}: not a NetCDF-4/HDF5 file (${(e as Error).message})`);
    }
  }

  private dataset(name: string): InstanceType<typeof h5wasm.Dataset> {
    const d = this.file.get(name);
    if (!(d instanceof h5wasm.Dataset))
      throw new SnowdbError('invalid-source', `${this.path}: no variable '${name}'`);
    return d;
  }

  /** Shape of a variable. */
  shape(name: string): number[] {
    return [...(this.dataset(name).shape ?? [])];
  }

  /** A variable's values (row-major) and its `_FillValue`, if any. */
  read(name: string): {
    values: ArrayLike<number> & { length: number };
    fill: number | undefined;
    dtype: string;
  } {
    const d = this.dataset(name);
    const v = d.value as unknown;
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
