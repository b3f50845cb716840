import { SnowdbError } from '../errors.js';

/** One regular file of a tar archive (a view into the archive's bytes). */
export interface TarMember {
  readonly name: string;
  readonly data: Uint8Array;
}

const BLOCK = 512;

function text(b: Uint8Array, at: number, len: number): string {
  const end = b.subarray(at, at + len).indexOf(0);
  return Buffer.from(b.subarray(at, end < 0 ? at + len : at + end)).toString('utf8');
}

function octal(b: Uint8Array, at: number, len: number): number {
  if ((b[at]! & 0x80) !== 0) {
    let v = 0; // GNU base-256 size
    for (let i = 1; i < len; i++) v = v * 256 + b[at + i]!;
    return v;
  }
  const s = text(b, at, len).trim();
  return s === '' ? 0 : Number.parseInt(s, 8);
}

/** PAX extended header records `<len> <key>=<value>\n` → map. */
function pax(data: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  const s = Buffer.from(data).toString('utf8');
  let i = 0;
  while (i < s.length) {
    const sp = s.indexOf(' ', i);
    const len = Number.parseInt(s.slice(i, sp), 10);
    if (!(len > 0)) break;
    const rec = s.slice(sp + 1, i + len - 1);
    const eq = rec.indexOf('=');
    out.set(rec.slice(0, eq), rec.slice(eq + 1));
    i += len;
  }
  return out;
}

/**
 * The regular files of an in-memory tar (ustar, GNU long names, PAX paths).
 * @throws SnowdbError `invalid-source`: `<label>: <what is wrong>` for a bad header checksum, a
 *   member running past the end (truncated archive) or an archive with no end.
 */
export function readTar(buf: Uint8Array, label: string): TarMember[] {
  const out: TarMember[] = [];
  let at = 0;
  let longName: string | null = null;
  while (at + BLOCK <= buf.length) {
    const h = buf.subarray(at, at + BLOCK);
    if (h.every((x) => x === 0)) return out;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (sum !== octal(h, 148, 8))
      throw new SnowdbError(
        'invalid-source',
        `${label}: not a tar archive, or damaged at byte ${at} (header checksum)`,
      );
    const size = octal(h, 124, 12);
    const type = String.fromCharCode(h[156]!);
    const prefix = text(h, 345, 155);
    const name = longName ?? (prefix ? `${prefix}/${text(h, 0, 100)}` : text(h, 0, 100));
    const start = at + BLOCK;
    if (start + size > buf.length) {
      throw new SnowdbError(
        'invalid-source',
        `${label}: truncated tar: member ${name} needs ${size} bytes, ${buf.length - start} left`,
      );
    }
    const data = buf.subarray(start, start + size);
    longName = null;
    if (type === 'L') longName = text(data, 0, size);
    else if (type === 'x') longName = pax(data).get('path') ?? null;
    else if (type === '0' || type === '\0' || type === '7') out.push({ name, data });
    at = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  if (at === buf.length && out.length > 0) return out; // no end blocks: accepted when it ends on a member boundary
  throw new SnowdbError('invalid-source', `${label}: truncated tar (ends inside a header at byte ${at})`);
}
