import zlib from 'node:zlib';
import { decompress as fzstdDecompress } from 'fzstd';
import { SnowdbError } from '../../errors.js';
import { decodeLzw } from './lzw.js';

/** Compressions snowdb writes. */
export type Compression = 'none' | 'deflate' | 'zstd';

/** TIFF Compression tag values. */
export const CompressionCode = { none: 1, lzw: 5, deflate: 8, adobeDeflate: 32946, zstd: 50000 } as const;

type ZstdZlib = {
  zstdCompressSync?: (buf: Uint8Array, opts?: object) => Buffer;
  zstdDecompressSync?: (buf: Uint8Array) => Buffer;
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
      return zlib.deflateSync(bytes, { level });
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

/**
 * Decompress one tile given its TIFF Compression code.
 * @throws SnowdbError `invalid-raster` for an unsupported code or corrupt data.
 */
export function decodeTile(code: number, bytes: Uint8Array, expectedBytes: number): Uint8Array {
  try {
    switch (code) {
      case CompressionCode.none:
        return bytes;
      case CompressionCode.deflate:
      case CompressionCode.adobeDeflate:
        return zlib.inflateSync(bytes);
      case CompressionCode.zstd:
        return zz.zstdDecompressSync ? zz.zstdDecompressSync(bytes) : fzstdDecompress(bytes);
      case CompressionCode.lzw:
        return decodeLzw(bytes, expectedBytes);
    }
  } catch (e) {
    throw new SnowdbError('invalid-raster', `corrupt tile data (${(e as Error).message})`);
  }
  throw new SnowdbError(
    'invalid-raster',
    `unsupported TIFF compression ${code} (snowdb reads 1, 5, 8, 32946, 50000)`,
  );
}
