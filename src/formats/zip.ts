import { createReadStream, createWriteStream } from 'node:fs';
import { type FileHandle, open, rename, rm } from 'node:fs/promises';
import { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32, createInflateRaw } from 'node:zlib';
import { SnowdbError } from '../errors.js';

/** One member of a zip archive, from its central directory. */
export interface ZipMember {
  readonly name: string;
  /** 0 stored, 8 deflate. */
  readonly method: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localHeaderOffset: number;
  /** CRC-32 of the uncompressed bytes, from the central directory. */
  readonly crc32: number;
}

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX32 = 0xffffffff;

const hex = (n: number) => n.toString(16).padStart(8, '0');

async function readAt(fh: FileHandle, offset: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, offset);
  return buf.subarray(0, bytesRead);
}

/**
 * The members of a zip file (classic or ZIP64), read from its central directory only.
 * @throws SnowdbError `invalid-source` when the file is not a readable zip.
 */
export async function listZip(path: string): Promise<ZipMember[]> {
  const bad = (why: string): never => {
    throw new SnowdbError('invalid-source', `${path}: not a readable zip archive (${why})`);
  };
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const tailLen = Math.min(size, 22 + 0xffff);
    const tail = await readAt(fh, size - tailLen, tailLen);
    let e = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        e = i;
        break;
      }
    }
    if (e < 0) bad('no end-of-central-directory record');
    let count = tail.readUInt16LE(e + 10);
    let cdSize = tail.readUInt32LE(e + 12);
    let cdOffset = tail.readUInt32LE(e + 16);
    if ((cdOffset === MAX32 || count === 0xffff) && e >= 20 && tail.readUInt32LE(e - 20) === EOCD64_LOCATOR) {
      const rec = await readAt(fh, Number(tail.readBigUInt64LE(e - 12)), 56);
      count = Number(rec.readBigUInt64LE(32));
      cdSize = Number(rec.readBigUInt64LE(40));
      cdOffset = Number(rec.readBigUInt64LE(48));
    }
    const cd = await readAt(fh, cdOffset, cdSize);
    const out: ZipMember[] = [];
    let p = 0;
    for (let k = 0; k < count; k++) {
      if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL) bad('truncated central directory');
      const nameLen = cd.readUInt16LE(p + 28);
      const extraLen = cd.readUInt16LE(p + 30);
      const commentLen = cd.readUInt16LE(p + 32);
      let compressedSize = cd.readUInt32LE(p + 20);
      let size = cd.readUInt32LE(p + 24);
      let localHeaderOffset = cd.readUInt32LE(p + 42);
      const name = cd.toString('utf8', p + 46, p + 46 + nameLen);
      // ZIP64 extra field: the 64-bit values of the fields that read 0xffffffff, in this order.
      for (let x = p + 46 + nameLen; x + 4 <= p + 46 + nameLen + extraLen; ) {
        const id = cd.readUInt16LE(x);
        const len = cd.readUInt16LE(x + 2);
        if (id === 1) {
          let q = x + 4;
          const next = (): number => {
            const v = Number(cd.readBigUInt64LE(q));
            q += 8;
            return v;
          };
          if (size === MAX32) size = next();
          if (compressedSize === MAX32) compressedSize = next();
          if (localHeaderOffset === MAX32) localHeaderOffset = next();
        }
        x += 4 + len;
      }
      out.push({
        name,
        method: cd.readUInt16LE(p + 10),
        compressedSize,
        size,
        localHeaderOffset,
        crc32: cd.readUInt32LE(p + 16),
      });
      p += 46 + nameLen + extraLen + commentLen;
    }
    return out;
  } finally {
    await fh.close();
  }
}

/**
 * Inflate one member into `output`, streaming with bounded memory; its bytes must have the size
 * and CRC-32 its directory entry declares (a zip bomb stops at the declared size).
 * @throws SnowdbError `invalid-source` for an unsupported method, a size or a CRC-32 mismatch.
 */
async function inflateMember(path: string, m: ZipMember, output: Writable): Promise<void> {
  if (m.method !== 0 && m.method !== 8)
    throw new SnowdbError(
      'invalid-source',
      `${path}: ${m.name} uses zip method ${m.method} (snowdb reads stored and deflate)`,
    );
  const fh = await open(path, 'r');
  let start: number;
  try {
    const local = await readAt(fh, m.localHeaderOffset, 30);
    if (local.length < 30 || local.readUInt32LE(0) !== LOCAL)
      throw new SnowdbError('invalid-source', `${path}: ${m.name}: bad local header`);
    start = m.localHeaderOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  } finally {
    await fh.close();
  }
  try {
    const input = createReadStream(path, {
      start,
      end: start + m.compressedSize - 1,
      highWaterMark: 1 << 20,
    });
    let seen = 0;
    let crc = 0;
    const bounded = new Transform({
      transform(chunk: Buffer, _enc, done) {
        seen += chunk.length;
        crc = crc32(chunk, crc);
        if (seen > m.size)
          done(
            new SnowdbError(
              'invalid-source',
              `${path}: ${m.name} inflates past the ${m.size} bytes its directory entry declares (a corrupt or hostile zip)`,
            ),
          );
        else done(null, chunk);
      },
    });
    if (m.method === 8) await pipeline(input, createInflateRaw(), bounded, output);
    else await pipeline(input, bounded, output);
    if (seen !== m.size)
      throw new SnowdbError(
        'invalid-source',
        `${path}: ${m.name} extracted to ${seen} bytes, expected ${m.size}`,
      );
    if (crc !== m.crc32)
      throw new SnowdbError(
        'invalid-source',
        `${path}: ${m.name} has CRC-32 ${hex(crc)}, its directory entry declares ${hex(m.crc32)} (a corrupt download?)`,
      );
  } catch (e) {
    if (SnowdbError.is(e)) throw e;
    throw new SnowdbError('invalid-source', `${path}: ${m.name}: ${(e as Error).message}`);
  }
}

/**
 * Extract one member to `target` (written beside it, renamed into place when complete).
 * @throws SnowdbError `invalid-source` as `inflateMember`.
 */
export async function extractZipMember(path: string, m: ZipMember, target: string): Promise<void> {
  const part = `${target}.part`;
  try {
    await inflateMember(path, m, createWriteStream(part));
    await rename(part, target);
  } catch (e) {
    await rm(part, { force: true });
    throw e;
  }
}

/**
 * One member's bytes, inflated straight into memory (no temp file); the caller bounds `m.size`.
 * @throws SnowdbError `invalid-source` as `inflateMember`.
 */
export async function readZipMember(path: string, m: ZipMember): Promise<Buffer> {
  const out = Buffer.allocUnsafe(m.size);
  let at = 0;
  await inflateMember(
    path,
    m,
    new Writable({
      write(chunk: Buffer, _enc, done) {
        at += chunk.copy(out, at);
        done();
      },
    }),
  );
  return out;
}
