/**
 * Decoders bound their output by what the file declares: a SNODAS member that inflates past the
 * grid its header gives, or a zip member past its directory's size, is refused before it takes
 * the memory or the disk (decompression bombs).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { deflateRawSync, gzipSync } from 'node:zlib';
import { SnowdbError } from '../../src/errors.js';
import { decodeSnodasProduct, type SnodasProduct } from '../../src/formats/snodas.js';
import { extractZipMember, listZip } from '../../src/formats/zip.js';
import { tempDir } from '../helpers/cli.js';
import { fixturePath } from '../helpers/raster.js';
import { headerText } from '../helpers/snodas.js';

const GRID_BYTES = 6935 * 3351 * 2; // the masked grid, int16

const product = (header: Uint8Array, data: Uint8Array): SnodasProduct => ({
  variable: 'swe',
  stem: 'us_ssmv11034tS__T0001TTNATS2024010105HP001',
  fields: {},
  header: { name: 'swe.txt.gz', data: header },
  data: { name: 'swe.dat.gz', data },
});

const refused = (pattern: RegExp) => (e: unknown) =>
  SnowdbError.is(e) && e.key === 'invalid-source' && pattern.test(e.message);

describe('bounded decoders', () => {
  it('a SNODAS data member inflating past the 6935 × 3351 int16 grid is refused at that size', async () => {
    const header = gzipSync(
      Buffer.from(
        await headerText('us_ssmv11034tS__T0001TTNATS2024010105HP001', 'Meters / 1000.000000', 'current'),
      ),
    );
    const bomb = gzipSync(Buffer.alloc(128 << 20), { level: 1 }); // 128 MiB of zeros in ~130 kB
    assert.ok(bomb.length < 1 << 20);
    // Into a buffer of its own, and into a borrowed one larger than the grid: refused at the grid.
    for (const into of [undefined, Buffer.alloc(GRID_BYTES + 4096)])
      await assert.rejects(
        decodeSnodasProduct(product(header, bomb), 'SNODAS_20240101.tar', into),
        refused(new RegExp(`swe\\.dat\\.gz inflates past ${GRID_BYTES} bytes`)),
      );
    // One byte short is the old message: truncated.
    const short = gzipSync(Buffer.alloc(GRID_BYTES - 2), { level: 1 });
    await assert.rejects(
      decodeSnodasProduct(product(header, short), 'SNODAS_20240101.tar'),
      refused(/holds 46478368 bytes; 6935 x 3351 int16 needs 46478370/),
    );
    // A whole grid (big-endian 1, 2, 3, …): the same values in a buffer of its own or a borrowed one.
    const grid = Buffer.alloc(GRID_BYTES);
    for (let i = 0; i < GRID_BYTES; i += 2) grid.writeInt16BE((i / 2) % 30_000, i);
    const whole = product(header, gzipSync(grid, { level: 1 }));
    const own = await decodeSnodasProduct(whole, 'SNODAS_20240101.tar');
    const borrowed = await decodeSnodasProduct(whole, 'SNODAS_20240101.tar', Buffer.alloc(GRID_BYTES + 2));
    assert.deepEqual(
      [own.data[0], own.data[1], own.data[30_001], own.data.length],
      [0, 1, 1, GRID_BYTES / 2],
    );
    assert.ok(
      Buffer.from(own.data.buffer, own.data.byteOffset, GRID_BYTES).equals(
        Buffer.from(borrowed.data.buffer, borrowed.data.byteOffset, GRID_BYTES),
      ),
    );
  });

  it('a SNODAS header member inflating past 64 KiB is refused', async () => {
    const header = gzipSync(Buffer.alloc(1 << 20, 'a'));
    await assert.rejects(
      decodeSnodasProduct(product(header, gzipSync(Buffer.alloc(2))), 'SNODAS_20240101.tar'),
      refused(/swe\.txt\.gz inflates past 65536 bytes/),
    );
  });

  it('a zip member inflating past its declared size stops there and leaves no file', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0); // local file header, no name, no extra field
      const data = deflateRawSync(Buffer.alloc(64 << 20), { level: 1 });
      const zip = join(dir, 'landcover.zip');
      await writeFile(zip, Buffer.concat([local, data]));
      const target = join(dir, 'nlcd.tif');
      const member = {
        name: 'nlcd.tif',
        method: 8,
        compressedSize: data.length,
        size: 1000,
        localHeaderOffset: 0,
        crc32: 0, // the CRC-32 of 64 MiB of zeros is not 0: only the size check can stop it first
      };
      await assert.rejects(
        extractZipMember(zip, member, target),
        refused(/nlcd\.tif inflates past the 1000 bytes its directory entry declares/),
      );
      assert.equal(existsSync(target), false);
      assert.equal(existsSync(`${target}.part`), false);
      // The same member declared at its true size and CRC-32 extracts.
      await assert.rejects(
        extractZipMember(zip, { ...member, size: 64 << 20 }, target),
        refused(/nlcd\.tif has CRC-32 [0-9a-f]{8}, its directory entry declares 00000000/),
      );
      assert.equal(existsSync(target), false);
      await extractZipMember(zip, { ...member, size: 64 << 20, crc32: 0xb2eb30ed }, target);
      assert.equal(existsSync(target), true);
    } finally {
      await cleanup();
    }
  });

  it('a ZIP64 archive from Info-ZIP lists and extracts; a member whose bytes do not match its CRC-32 is refused', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const zip = fixturePath('zip/zip64.zip');
      const members = await listZip(zip);
      // The uncompressed size of swe.txt is only in the ZIP64 extra field (0xffffffff in the entry).
      assert.deepEqual(
        members.map((m) => [m.name, m.method, m.size, m.crc32.toString(16)]),
        [
          ['swe.txt', 8, 5200, '1ae473ac'],
          ['depth.txt', 0, 5, 'faa31c69'],
        ],
      );
      await extractZipMember(zip, members[0]!, join(dir, 'swe.txt'));
      assert.equal(await readFile(join(dir, 'swe.txt'), 'utf8'), 'snow water equivalent, mm\n'.repeat(200));
      // One byte of the stored member changed: the same size, another CRC-32.
      const bytes = await readFile(zip);
      const at = bytes.indexOf('depth', members[1]!.localHeaderOffset + 30 + 'depth.txt'.length);
      bytes[at] = 'D'.charCodeAt(0);
      const corrupt = join(dir, 'corrupt.zip');
      await writeFile(corrupt, bytes);
      const target = join(dir, 'depth.txt');
      await assert.rejects(
        extractZipMember(corrupt, (await listZip(corrupt))[1]!, target),
        refused(
          /depth\.txt has CRC-32 [0-9a-f]{8}, its directory entry declares faa31c69 \(a corrupt download\?\)/,
        ),
      );
      assert.equal(existsSync(target), false);
      assert.equal(existsSync(`${target}.part`), false);
    } finally {
      await cleanup();
    }
  });
});
