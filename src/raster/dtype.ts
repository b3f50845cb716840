/** Pixel data types snowdb reads and writes, with their typed arrays and TIFF encodings. */
export type DType = 'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'float32' | 'float64';

export type TypedArray =
  | Uint8Array
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | Float32Array
  | Float64Array;

/** Maps each dtype to its typed array type. */
export interface DTypeArray {
  uint8: Uint8Array;
  int8: Int8Array;
  uint16: Uint16Array;
  int16: Int16Array;
  uint32: Uint32Array;
  int32: Int32Array;
  float32: Float32Array;
  float64: Float64Array;
}

interface DTypeInfo {
  /** Bytes per sample. */
  readonly bytes: 1 | 2 | 4 | 8;
  /** TIFF SampleFormat: 1 unsigned, 2 signed, 3 IEEE float. */
  readonly sampleFormat: 1 | 2 | 3;
  readonly ctor: new (buf: ArrayBufferLike, byteOffset?: number, length?: number) => TypedArray;
}

export const DTYPES: Readonly<Record<DType, DTypeInfo>> = {
  uint8: { bytes: 1, sampleFormat: 1, ctor: Uint8Array },
  int8: { bytes: 1, sampleFormat: 2, ctor: Int8Array },
  uint16: { bytes: 2, sampleFormat: 1, ctor: Uint16Array },
  int16: { bytes: 2, sampleFormat: 2, ctor: Int16Array },
  uint32: { bytes: 4, sampleFormat: 1, ctor: Uint32Array },
  int32: { bytes: 4, sampleFormat: 2, ctor: Int32Array },
  float32: { bytes: 4, sampleFormat: 3, ctor: Float32Array },
  float64: { bytes: 8, sampleFormat: 3, ctor: Float64Array },
};

/** A zero-filled typed array of `length` samples. */
export function allocate<D extends DType>(dtype: D, length: number): DTypeArray[D] {
  const info = DTYPES[dtype];
  return new info.ctor(new ArrayBuffer(length * info.bytes)) as DTypeArray[D];
}

/** A view of `bytes` as samples of `dtype` (copies only when the offset is misaligned). */
export function viewAs<D extends DType>(dtype: D, bytes: Uint8Array): DTypeArray[D] {
  const info = DTYPES[dtype];
  if (bytes.byteOffset % info.bytes !== 0) bytes = bytes.slice();
  return new info.ctor(bytes.buffer, bytes.byteOffset, bytes.byteLength / info.bytes) as DTypeArray[D];
}

/** The dtype of a TIFF (BitsPerSample, SampleFormat) pair, or null if unsupported. */
export function dtypeFromTiff(bits: number, sampleFormat: number): DType | null {
  for (const [name, info] of Object.entries(DTYPES) as [DType, DTypeInfo][]) {
    if (info.bytes * 8 === bits && info.sampleFormat === sampleFormat) return name;
  }
  return null;
}

export function isFloat(dtype: DType): boolean {
  return DTYPES[dtype].sampleFormat === 3;
}

/** The dtype name of a typed array. */
export function dtypeOf(a: TypedArray): DType {
  if (a instanceof Uint8Array) return 'uint8';
  if (a instanceof Int8Array) return 'int8';
  if (a instanceof Uint16Array) return 'uint16';
  if (a instanceof Int16Array) return 'int16';
  if (a instanceof Uint32Array) return 'uint32';
  if (a instanceof Int32Array) return 'int32';
  if (a instanceof Float32Array) return 'float32';
  return 'float64';
}
