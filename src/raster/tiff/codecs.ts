import zlib from 'node:zlib';
import { decompress as fzstdDecompress } from 'fzstd';
import { SnowdbError } from '../../errors.js';
import { deflateZlib } from '../../util/deflate.js';
import { InflateError, inflateInto } from '../../util/inflate.js';
import { decodeLzw } from './lzw.js';

/** Compressions snowdb writes. */
export type Compression = 'none' | 'deflate' | 'zstd';

/** TIFF Compression tag values. */
export const CompressionCode = { none: 1, lzw: 5, deflate: 8, adobeDeflate: 32946, zstd: 50000 } as const;

type ZstdZlib = {
  zstdCompressSync?: (buf: Uint8Array, opts?: object) => Buffer;
  zstdDecompressSync?: (buf: Uint8Array, opts?: { maxOutputLength?: number }) => Buffer;
  constants: Record<string, number>;
};
const zz = zlib as unknown as ZstdZlib;

/** True when this Node has zstd in node:zlib (22.15+), so zstd can be written. */
export const zstdWritable = typeof zz.zstdCompressSync === 'function';

/**
 * Compress one tile's bytes.
 * @throws SnowdbError `invalid-raster` for zstd on a Node without zlib zstd.
 */
export function encodeTile(c: Compression, bytes: Uint8Array, level: number): Uint8Array {
  switch (c) {
    case 'none':
      return bytes;
    case 'deflate':
      return deflateZlib(bytes, level);
    case 'zstd': {
      if (!zz.zstdCompressSync) {
        throw new SnowdbError(
          'invalid-raster',
          `zstd compression needs Node.js ≥ 22.15 (this is ${process.version})`,
        );
      }
      const key = zz.constants.ZSTD_c_compressionLevel;
      return zz.zstdCompressSync(bytes, key === undefined ? {} : { params: { [key]: level } });
    }
  }
}

/** The Frame_Content_Size a zstd frame header declares (RFC 8878 §3.1.1.1), or null when absent. */
function zstdContentSize(b: Uint8Array): number | null {
  if (b.length < 6 || b[0] !== 0x28 || b[1] !== 0xb5 || b[2] !== 0x2f || b[3] !== 0xfd) return null;
  const fhd = b[4]!;
  const single = (fhd >> 5) & 1;
  const fcsFlag = fhd >> 6;
  const fcsBytes = fcsFlag === 0 ? single : [0, 2, 4, 8][fcsFlag]!;
  if (fcsBytes === 0) return null;
  let at = 5 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3]!;
  let v = 0;
  for (let i = 0; i < fcsBytes; i++) v += b[at++]! * 2 ** (8 * i);
  return fcsBytes === 2 ? v + 256 : v;
}

/**
 * Decompress one tile given its TIFF Compression code. No tile inflates past `expectedBytes` (its
 * width × height × sample size): a decompression bomb stops there instead of filling memory.
 * @throws SnowdbError `invalid-raster` for an unsupported code, corrupt data or a tile past its size.
 */
export function decodeTile(code: number, bytes: Uint8Array, expectedBytes: number): Uint8Array {
  const max = { maxOutputLength: Math.max(1, expectedBytes) };
  try {
    switch (code) {
      case CompressionCode.none:
        return bytes;
      case CompressionCode.deflate:
      case CompressionCode.adobeDeflate: {
        // Straight into a tile-sized buffer: no 16 kB chunks of zlib's own, no concatenation.
        const out = Buffer.allocUnsafeSlow(Math.max(1, expectedBytes));
        return out.subarray(0, inflateInto('zlib', bytes, out));
      }
      case CompressionCode.zstd: {
        if (zz.zstdDecompressSync) return zz.zstdDecompressSync(bytes, max);
        // fzstd (Node < 22.15): refuse a frame that declares more than the tile; one that declares
        // nothing is written into a tile-sized buffer, where fzstd stops.
        const declared = zstdContentSize(bytes);
        if (declared !== null && declared > expectedBytes) throw new RangeError('past the tile');
        return declared === null
          ? fzstdDecompress(bytes, new Uint8Array(expectedBytes))
          : fzstdDecompress(bytes);
      }
      case CompressionCode.lzw:
        return decodeLzw(bytes, expectedBytes);
    }
  } catch (e) {
    const past =
      e instanceof RangeError ||
      (e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ||
      (e instanceof InflateError && e.reason === 'overflow');
    throw new SnowdbError(
      'invalid-raster',
      past
        ? `a tile inflates past its ${expectedBytes} bytes (a decompression bomb or corrupt data)`
        : `corrupt tile data (${(e as Error).message})`,
    );
  }
  throw new SnowdbError(
    'invalid-raster',
    `unsupported TIFF compression ${code} (snowdb reads 1, 5, 8, 32946, 50000)`,
  );
}
