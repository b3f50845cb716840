import { SnowdbError } from '../errors.js';
import { InflateError, inflateInto } from '../util/inflate.js';
import type { TarMember } from './tar.js';

/** Stem grammar of a SNODAS member (data-formats §2.2), e.g. `us_ssmv11034tS__T0001TTNATS2010061605HP001`. */
const STEM =
  /^(?<region>[a-z]{2})_(?<model>[a-z]{3})(?<datatype>v\d)(?<code>\d{4})(?<scaled>S?)(?<vcode>[a-zA-Z]{2}[\d_]{2})[AT](?<timecode>00(?:01|24))TTNATS(?<date>\d{8})(?<hour>\d{2})(?<interval>[HD])(?<offset>P00[01])$/;

/** Product code (+ vcode for precipitation) → dataset variable key. */
export function snodasVariable(code: string, vcode: string): string | null {
  if (code === '1025') return vcode === 'lL00' ? 'precip_liquid' : vcode === 'lL01' ? 'precip_solid' : null;
  return (
    {
      '1034': 'swe',
      '1036': 'depth',
      '1038': 'average_temp',
      '1039': 'sublimation_blowing',
      '1044': 'runoff',
      '1050': 'sublimation',
    }[code] ?? null
  );
}

export const SNODAS_VARIABLES = [
  'swe',
  'depth',
  'precip_solid',
  'precip_liquid',
  'average_temp',
  'sublimation_blowing',
  'runoff',
  'sublimation',
];

/** One product of a daily tar: its variable, stem, and the data and header members. */
export interface SnodasProduct {
  readonly variable: string;
  readonly stem: string;
  readonly fields: Readonly<Record<string, string>>;
  readonly data: TarMember;
  readonly header: TarMember;
}

/**
 * The eight products of a daily SNODAS tar, checked by name only (nothing is decompressed):
 * `<stem>.dat.gz` + `<stem>.txt.gz` (or `.Hdr.gz`) per product, masked `us` region, hour 05, one
 * date, each product exactly once.
 * @throws SnowdbError `invalid-source` naming the archive and the problem.
 */
export function snodasProducts(
  members: readonly TarMember[],
  label: string,
): { date: string; products: SnodasProduct[] } {
  const byStem = new Map<string, { data?: TarMember; header?: TarMember }>();
  for (const m of members) {
    const base = m.name.split('/').pop()!;
    const ext = /\.(dat|txt|hdr)\.gz$/i.exec(base);
    if (ext === null) continue;
    const stem = base.slice(0, -ext[0].length);
    const slot = byStem.get(stem) ?? {};
    const kind = ext[1]!.toLowerCase() === 'dat' ? 'data' : 'header';
    if (slot[kind] !== undefined)
      throw new SnowdbError('invalid-source', `${label}: member ${base} appears twice`);
    slot[kind] = m;
    byStem.set(stem, slot);
  }
  const products = new Map<string, SnodasProduct>();
  const dates = new Set<string>();
  for (const [stem, slot] of byStem) {
    const g = STEM.exec(stem)?.groups;
    if (g === undefined)
      throw new SnowdbError('invalid-source', `${label}: ${stem} is not a SNODAS product name`);
    if (g.region !== 'us') {
      throw new SnowdbError(
        'invalid-source',
        `${label}: ${stem} is on the '${g.region}' grid; only the masked 'us' grid is supported (unmasked 'zz' files are refused)`,
      );
    }
    if (g.hour !== '05')
      throw new SnowdbError(
        'invalid-source',
        `${label}: ${stem} is for hour ${g.hour}; only the 05 UTC daily product is supported`,
      );
    const variable = snodasVariable(g.code!, g.vcode!);
    if (variable === null) continue;
    if (slot.data === undefined || slot.header === undefined) {
      throw new SnowdbError(
        'invalid-source',
        `${label}: ${stem} has no ${slot.data === undefined ? '.dat.gz data' : '.txt.gz/.Hdr.gz header'} member`,
      );
    }
    const prev = products.get(variable);
    if (prev !== undefined)
      throw new SnowdbError(
        'invalid-source',
        `${label}: product ${variable} appears twice (${prev.stem}, ${stem})`,
      );
    dates.add(g.date!);
    products.set(variable, { variable, stem, fields: { ...g }, data: slot.data, header: slot.header });
  }
  const missing = SNODAS_VARIABLES.filter((v) => !products.has(v));
  if (missing.length > 0)
    throw new SnowdbError(
      'invalid-source',
      `${label}: missing product(s) ${missing.join(', ')} (a daily tar holds all eight)`,
    );
  if (dates.size !== 1)
    throw new SnowdbError(
      'invalid-source',
      `${label}: products of several dates (${[...dates].sort().join(', ')})`,
    );
  return { date: [...dates][0]!, products: SNODAS_VARIABLES.map((v) => products.get(v)!) };
}

/** `Key: value` lines of a NOHRSC header (values trimmed; keys as written). */
export function parseSnodasHeader(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return out;
}

/** Masked-grid lattices SNODAS has used: today's, and the one 1/20 cell away before 2013-10-01. */
export const SNODAS_LATTICES = [
  { name: 'current', minX: -124.733333333333, maxY: 52.875 },
  { name: 'pre-2013-10-01', minX: -124.73375, maxY: 52.8745833333333 },
] as const;

export interface SnodasGrid {
  readonly lattice: (typeof SNODAS_LATTICES)[number]['name'];
  /** minX minY maxX maxY as the header gives them. */
  readonly bounds: string;
  /** `Data units` text, and the divisor after its `/` (1 when none is written). */
  readonly units: string;
  readonly divisor: number;
}

/** Most bytes a header member may inflate to (real ones are ~1.5 kB). */
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Inflate a small gzip member (a header), stopping past `most` bytes: a member that would inflate
 * further (a decompression bomb) is refused before it takes the memory.
 */
function gunzip(m: TarMember, label: string, most: number): Buffer {
  const out = Buffer.allocUnsafe(most);
  return out.subarray(0, gunzipInto(m, label, out));
}

/**
 * Inflate a gzip member into `into` (no buffer of zlib's own: see util/inflate.ts), refusing one
 * that would inflate past it.
 * @returns the bytes written.
 */
function gunzipInto(m: TarMember, label: string, into: Buffer): number {
  try {
    return inflateInto('gzip', m.data, into);
  } catch (e) {
    if (e instanceof InflateError && e.reason === 'overflow')
      throw new SnowdbError(
        'invalid-source',
        `${label}: member ${m.name} inflates past ${into.length} bytes, more than its header declares (a corrupt or hostile file)`,
      );
    throw new SnowdbError(
      'invalid-source',
      `${label}: member ${m.name} is not valid gzip (${(e as Error).message})`,
    );
  }
}

/**
 * Decode one product: its header checked against the masked 6935 × 3351 grid, its big-endian
 * int16 data converted to this machine's order, in `into` when given (6935 × 3351 × 2 bytes, or
 * more: the data is its start), else in a buffer of its own.
 * @throws SnowdbError `invalid-source` for a corrupt member, other dimensions, another grid.
 */
export async function decodeSnodasProduct(
  p: SnodasProduct,
  label: string,
  into?: Buffer,
): Promise<{ grid: SnodasGrid; data: Int16Array }> {
  const h = parseSnodasHeader(gunzip(p.header, label, MAX_HEADER_BYTES).toString('latin1'));
  const where = `${label}: ${p.header.name}`;
  const num = (k: string) => {
    const v = Number(h.get(k));
    if (!Number.isFinite(v))
      throw new SnowdbError('invalid-source', `${where}: header has no numeric '${k}'`);
    return v;
  };
  const cols = num('Number of columns');
  const rows = num('Number of rows');
  if (cols === 8192 && rows === 4096)
    throw new SnowdbError(
      'invalid-source',
      `${where}: 8192 x 4096 is the unmasked grid; only the masked grid is supported`,
    );
  if (cols !== 6935 || rows !== 3351)
    throw new SnowdbError(
      'invalid-source',
      `${where}: grid is ${cols} x ${rows}; the masked SNODAS grid is 6935 x 3351`,
    );
  if (num('Data bytes per pixel') !== 2)
    throw new SnowdbError('invalid-source', `${where}: expected 2 bytes per pixel`);
  if (num('No data value') !== -9999)
    throw new SnowdbError('invalid-source', `${where}: nodata is ${h.get('No data value')}, expected -9999`);
  const minX = num('Minimum x-axis coordinate');
  const maxY = num('Maximum y-axis coordinate');
  const lattice = SNODAS_LATTICES.find(
    (l) => Math.abs(l.minX - minX) < 1e-6 && Math.abs(l.maxY - maxY) < 1e-6,
  );
  if (lattice === undefined) {
    throw new SnowdbError(
      'invalid-source',
      `${where}: grid corner (${minX}, ${maxY}) is neither the current SNODAS grid nor its pre-2013 lattice`,
    );
  }
  const units = h.get('Data units') ?? '';
  const divisor = units.includes('/') ? Number(units.split('/').pop()) : 1;
  if (!(divisor > 0))
    throw new SnowdbError('invalid-source', `${where}: cannot read a divisor from 'Data units: ${units}'`);
  const bytes = cols * rows * 2;
  const out = into !== undefined && into.length >= bytes ? into : Buffer.allocUnsafeSlow(bytes);
  const n = gunzipInto(p.data, label, out.subarray(0, bytes)); // past it: refused, not cut
  if (n !== bytes) {
    throw new SnowdbError(
      'invalid-source',
      `${label}: ${p.data.name} holds ${n} bytes; 6935 x 3351 int16 needs ${bytes} (truncated?)`,
    );
  }
  const raw = out.subarray(0, bytes);
  const aligned = raw.byteOffset % 2 === 0 ? raw : Buffer.from(raw);
  aligned.swap16(); // big-endian → little-endian (this machine and our TIFFs)
  const data = new Int16Array(aligned.buffer, aligned.byteOffset, cols * rows);
  const bounds = [
    'Minimum x-axis coordinate',
    'Minimum y-axis coordinate',
    'Maximum x-axis coordinate',
    'Maximum y-axis coordinate',
  ]
    .map((k) => h.get(k))
    .join(' ');
  return { grid: { lattice: lattice.name, bounds, units, divisor }, data };
}
