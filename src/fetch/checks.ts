import { open, readFile } from 'node:fs/promises';
import { SnowdbError } from '../errors.js';
import { readTar } from '../formats/tar.js';

/** What a file starts with, for a message: printable ASCII, or hex. */
function opening(b: Uint8Array): string {
  const head = b.subarray(0, 24);
  const ascii = Buffer.from(head).toString('latin1');
  return /^[\x20-\x7e\r\n\t]+$/.test(ascii)
    ? `'${ascii.replace(/\s+/g, ' ').trim()}'`
    : Buffer.from(head).toString('hex');
}

/** A whole tar (every member within the file) holding at least one `.dat.gz` grid. */
export async function checkTarFile(path: string, name: string): Promise<void> {
  const buf = await readFile(path);
  if (buf.length < 512)
    throw new SnowdbError(
      'invalid-source',
      `${name}: not a tar archive (${buf.length} bytes, starts with ${opening(buf)})`,
    );
  let members: ReturnType<typeof readTar>;
  try {
    members = readTar(buf, name);
  } catch (e) {
    if (SnowdbError.is(e) && /checksum/.test(e.message))
      throw new SnowdbError('invalid-source', `${name}: not a tar archive (starts with ${opening(buf)})`);
    throw e;
  }
  if (!members.some((m) => m.name.endsWith('.dat.gz')))
    throw new SnowdbError('invalid-source', `${name}: the archive holds no .dat.gz grid`);
}

const HDF5_SIGNATURE = Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Little-endian unsigned integer of `size` bytes at `at` (HDF5 addresses: 4 or 8 bytes). */
function uint(b: Buffer, at: number, size: number): number {
  let v = 0;
  for (let i = size - 1; i >= 0; i--) v = v * 256 + b[at + i]!;
  return v;
}

/**
 * A NetCDF-4 (HDF5) file as long as its superblock says: the signature at byte 0, and the file
 * at least as long as the superblock's end-of-file address (a cut-short download is shorter).
 */
export async function checkHdf5File(path: string, name: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const b = Buffer.alloc(96);
    await fh.read(b, 0, 96, 0);
    if (!b.subarray(0, 8).equals(HDF5_SIGNATURE))
      throw new SnowdbError(
        'invalid-source',
        `${name}: not a NetCDF-4/HDF5 file (starts with ${opening(b.subarray(0, Math.min(size, 24)))})`,
      );
    const version = b[8]!;
    // Superblock v0/v1: sizes at bytes 13-14, addresses from 24 (v1: 4 more bytes first);
    // v2/v3: sizes at 9-10, addresses from 12. Addresses: base, (free space | extension), EOF.
    const [o, first] = version <= 1 ? [b[13]!, 24 + (version === 1 ? 4 : 0)] : [b[9]!, 12];
    if (o !== 4 && o !== 8)
      throw new SnowdbError('invalid-source', `${name}: HDF5 superblock with ${o}-byte offsets`);
    const eof = uint(b, first, o) + uint(b, first + 2 * o, o);
    if (size < eof)
      throw new SnowdbError(
        'invalid-source',
        `${name}: truncated: ${size} bytes, its HDF5 superblock says ${eof}`,
      );
  } finally {
    await fh.close();
  }
}
