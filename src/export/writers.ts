/**
 * Export sinks, one per format and layout (a registry, as the ingesters are): each takes one
 * basin's answer for one chunk of dates at a time and writes into a temporary path beside the
 * target, renamed over it only when all is written (the file or folder appears whole or not at
 * all). Rows are the stats CSV's: basin, date, the zone axes' columns, area, then the statistics.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileWriter, ParquetWriter } from 'hyparquet-writer';
import { stemOf } from '../db/layout.js';
import { QueryParameterError } from '../errors.js';
import { hdf5Library } from '../formats/hdf5.js';
import { isAlive } from '../io/lock.js';
import { axisHeader, axisValues, type CellTable, headerOf, rowsOf } from '../stats/csv.js';
import { csvRow } from '../util/csv.js';
import { ZONE_LAYERS } from '../zones/layers.js';
import { ColumnBuffer, type ColumnKind } from './columns.js';
import { type CubeShape, cubeZones, NetcdfCube, zoneLabelOf } from './netcdf.js';
import type { Format, Layout } from './plan.js';

/** Rows per Parquet row group (readers skip whole groups; DuckDB and pandas read them in parallel). */
export const ROW_GROUP_ROWS = 100_000;

export interface Sink {
  /** One basin's answer for one chunk of dates. */
  basin(pourpoint: string, body: CellTable): Promise<void>;
  /** The chunk's basins are all in. */
  chunkEnd(): Promise<void>;
  /** Write what is left and put the result in place. */
  finish(): Promise<void>;
  /** Remove what was written. */
  abort(): Promise<void>;
}

/** A temporary name beside `target` carrying this process's pid. */
const tempBeside = (target: string) =>
  join(dirname(target), `.${basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);

/** Remove what an export to `target` killed before it could clean up left beside it (its pid is gone). */
export async function sweepDebris(target: string): Promise<string[]> {
  const name = basename(target).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`^\\.${name}\\.(\\d+)-[0-9a-f]{8}\\.tmp$`);
  const gone: string[] = [];
  for (const f of await readdir(dirname(target)).catch(() => [] as string[])) {
    const m = re.exec(f);
    if (m === null || isAlive(Number(m[1]))) continue;
    await rm(join(dirname(target), f), { recursive: true, force: true });
    gone.push(f);
  }
  return gone;
}

const CRLF = '\r\n';
const lines = (rows: Iterable<readonly string[]>) => {
  let out = '';
  for (const r of rows) out += `${csvRow(r)}${CRLF}`;
  return out;
};

/** Put a finished temp file or folder in place of `target` (a folder replaced by two renames). */
async function putInPlace(tmp: string, target: string, folder: boolean): Promise<void> {
  if (!folder) return rename(tmp, target);
  const old = tempBeside(target);
  const moved = await rename(target, old).then(
    () => true,
    () => false,
  );
  await rename(tmp, target);
  if (moved) await rm(old, { recursive: true, force: true });
}

/** A temp file beside `target`, open for writing; `finish` fsyncs and renames it into place, `abort` removes it. */
async function tempFile(target: string) {
  const tmp = tempBeside(target);
  const fh = await open(tmp, 'wx');
  return {
    fh,
    async finish() {
      await fh.sync();
      await fh.close();
      await putInPlace(tmp, target, false);
    },
    async abort() {
      await fh.close().catch(() => {});
      await rm(tmp, { force: true });
    },
  };
}

/** One CSV file: `pourpoint`, then the stats table's columns. */
async function csvLong(target: string): Promise<Sink> {
  const file = await tempFile(target);
  const { fh } = file;
  let header = false;
  return {
    async basin(pourpoint, body) {
      let text = header ? '' : lines([['pourpoint', ...headerOf(body, 'date')]]);
      header = true;
      text += lines(
        (function* () {
          for (const r of rowsOf(body)) yield [pourpoint, ...r];
        })(),
      );
      await fh.write(text);
    },
    async chunkEnd() {},
    finish: file.finish,
    abort: file.abort,
  };
}

/** A folder of CSV files, one per basin (`<id with : → _>.csv`, the stats table) or one per date (`<YYYYMMDD>.csv`, with `pourpoint`). */
async function csvFolder(target: string, by: 'basin' | 'date'): Promise<Sink> {
  const tmp = tempBeside(target);
  await mkdir(tmp);
  const started = new Set<string>();
  /** by date: the chunk's lines per date, and the header. */
  let held = new Map<string, string>();
  let header = '';
  return {
    async basin(pourpoint, body) {
      if (by === 'basin') {
        const file = join(tmp, `${stemOf(pourpoint)}.csv`);
        const text = (started.has(file) ? '' : lines([headerOf(body, 'date')])) + lines(rowsOf(body));
        started.add(file);
        await writeFile(file, text, { flag: 'a' });
        return;
      }
      header ||= lines([['pourpoint', ...headerOf(body, 'date')]]);
      for (const r of rowsOf(body)) held.set(r[0]!, (held.get(r[0]!) ?? '') + lines([[pourpoint, ...r]]));
    },
    async chunkEnd() {
      if (by !== 'date') return;
      for (const [date, text] of held)
        await writeFile(join(tmp, `${date.replaceAll('-', '')}.csv`), header + text);
      held = new Map();
    },
    async finish() {
      await putInPlace(tmp, target, true);
    },
    async abort() {
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

type Kind = ColumnKind;

/** Parquet column kinds of a table's columns: the basin and date, the axes' (bounds numbers, labels strings), the rest numbers. */
function kindsOf(body: CellTable): Kind[] {
  const axes = body.zone_layers.flatMap((layer) => {
    const s = ZONE_LAYERS.find((l) => l.key === layer)?.scheme;
    const n = axisHeader(layer).length;
    if (s?.kind === 'banded' || s?.kind === 'bucketed') return Array<Kind>(n).fill('DOUBLE');
    if (s?.kind === 'threshold') return ['STRING', 'DOUBLE'] as Kind[];
    return Array<Kind>(n).fill('STRING');
  });
  const rest = headerOf(body, 'date').length - 1 - axes.length;
  return ['STRING', 'DATE', ...axes, ...Array<Kind>(rest).fill('DOUBLE')];
}

/**
 * One Parquet file: typed columns (`pourpoint` string, `date` DATE, bounds and statistics float64,
 * labels strings), row groups of ROW_GROUP_ROWS (the last one the rest).
 */
async function parquetLong(target: string, meta: Record<string, string>): Promise<Sink> {
  const tmp = tempBeside(target);
  await writeFile(tmp, '', { flag: 'wx' });
  let writer: ParquetWriter | null = null;
  let names: string[] = [];
  let kinds: Kind[] = [];
  let cols: ColumnBuffer[] = [];
  /** Write whole row groups (and, at the end, the rest). */
  const flush = async (end: boolean) => {
    while (writer !== null && cols[0]!.length > 0 && (end || cols[0]!.length >= ROW_GROUP_ROWS)) {
      const rows = Math.min(ROW_GROUP_ROWS, cols[0]!.length);
      await writer.write({
        // Text columns (the basin, labels) by dictionary: a row group holds few distinct values.
        columnData: names.map((name, i) => ({
          name,
          data: cols[i]!.take(rows),
          ...(kinds[i] === 'STRING' && { encoding: 'RLE_DICTIONARY' as const }),
        })),
        rowGroupSize: ROW_GROUP_ROWS,
      });
    }
  };
  return {
    async basin(pourpoint, body) {
      if (writer === null) {
        names = ['pourpoint', ...headerOf(body, 'date')];
        kinds = kindsOf(body);
        cols = kinds.map((k) => new ColumnBuffer(k));
        writer = new ParquetWriter({
          writer: fileWriter(tmp),
          schema: [
            { name: 'root', num_children: names.length },
            ...names.map((name, i) => ({
              name,
              ...(kinds[i] === 'STRING'
                ? { type: 'BYTE_ARRAY' as const, converted_type: 'UTF8' as const }
                : kinds[i] === 'DATE'
                  ? { type: 'INT32' as const, converted_type: 'DATE' as const }
                  : { type: 'DOUBLE' as const }),
              repetition_type: i < 2 ? ('REQUIRED' as const) : ('OPTIONAL' as const),
            })),
          ],
          kvMetadata: Object.entries(meta).map(([key, value]) => ({ key, value })),
          createdBy: 'snowdb',
        });
      }
      // Each cell's axis and area columns once a basin; each row's statistics as the numbers they are.
      const cells = body.zones.map((z) => [
        ...z.zone
          .flatMap(axisValues)
          .map((v, i) => (kinds[i + 2] === 'STRING' ? v : v === '' ? null : Number(v))),
        z.area_m2,
        ...(z.area_acres === undefined ? [] : [z.area_acres]),
      ]);
      const first = 2 + (cells[0]?.length ?? 0);
      for (const [date, matrix] of Object.entries(body.results)) {
        const day = Math.round(Date.parse(date) / 86_400_000);
        for (const [k, cell] of cells.entries()) {
          cols[0]!.push(pourpoint);
          cols[1]!.push(day);
          for (let i = 0; i < cell.length; i++) cols[i + 2]!.push(cell[i]!);
          const stats = matrix[k]!;
          for (let i = 0; i < stats.length; i++) cols[first + i]!.push(stats[i]!);
        }
      }
      await flush(false);
    },
    async chunkEnd() {},
    async finish() {
      await flush(true);
      if (writer === null) throw new Error('parquet export: no rows');
      (writer as ParquetWriter).finish();
      const fh = await open(tmp, 'r+');
      await fh.sync();
      await fh.close();
      await putInPlace(tmp, target, false);
    },
    async abort() {
      await rm(tmp, { force: true });
    },
  };
}

/** The wide layouts' statistic: the one asked for, else the first mean column. */
function statColumn(body: CellTable, stat: string | undefined): number {
  const c =
    stat === undefined
      ? body.variables.findIndex((v) => v.startsWith('mean_'))
      : body.variables.indexOf(stat);
  if (c < 0)
    throw new QueryParameterError(
      `--stat ${stat ?? '(a mean)'}: not a column of this export; its columns: ${body.variables.join(', ')}`,
      { parameter: 'stat' },
    );
  return c;
}

const cellText = (v: number | string | null | undefined) => (v === null || v === undefined ? '' : String(v));

/** One CSV file, a row per date and a column per basin, of one statistic of whole basins (what spreadsheets chart). */
async function csvDateByBasin(target: string, shape: CubeShape, stat: string | undefined): Promise<Sink> {
  const file = await tempFile(target);
  const { fh } = file;
  const col = new Map(shape.pourpoints.map((p, i) => [p, i]));
  let c = -1;
  let held = new Map<string, string[]>();
  let header = false;
  return {
    async basin(pourpoint, body) {
      if (c < 0) c = statColumn(body, stat);
      if (!header) {
        await fh.write(lines([[`date (${body.variables[c]})`, ...shape.pourpoints]]));
        header = true;
      }
      const i = col.get(pourpoint)!;
      for (const [date, rows] of Object.entries(body.results)) {
        const row = held.get(date) ?? new Array<string>(shape.pourpoints.length).fill('');
        row[i] = cellText(rows[0]?.[c]);
        held.set(date, row);
      }
    },
    async chunkEnd() {
      const dates = [...held.keys()].sort();
      await fh.write(lines(dates.map((d) => [d, ...held.get(d)!])));
      held = new Map();
    },
    finish: file.finish,
    abort: file.abort,
  };
}

/** One CSV file, a row per basin and water year, a column per zone of the one axis: a statistic on one day of the year. */
async function csvYearByBand(
  target: string,
  shape: CubeShape,
  stat: string | undefined,
  day: string,
): Promise<Sink> {
  const file = await tempFile(target);
  const { fh } = file;
  const zones = cubeZones(shape.axes);
  const index = new Map(zones.map((z, i) => [JSON.stringify(z), i]));
  let c = -1;
  return {
    async basin(pourpoint, body) {
      if (c < 0) {
        c = statColumn(body, stat);
        await fh.write(
          lines([['pourpoint', `water_year (${body.variables[c]} on ${day})`, ...zones.map(zoneLabelOf)]]),
        );
      }
      const first = Object.keys(body.results)[0];
      if (first === undefined) return;
      const wy = Number(first.slice(0, 4)) + (first.slice(5, 7) >= '10' ? 1 : 0);
      const date = `${day >= '10' ? wy - 1 : wy}-${day}`;
      const rows = body.results[date];
      if (rows === undefined) return;
      const out = new Array<string>(zones.length).fill('');
      body.zones.forEach((z, k) => {
        const i = index.get(JSON.stringify(z.zone));
        if (i !== undefined) out[i] = cellText(rows[k]?.[c]);
      });
      await fh.write(lines([[pourpoint, String(wy), ...out]]));
    },
    async chunkEnd() {},
    finish: file.finish,
    abort: file.abort,
  };
}

/** One NetCDF-4 file: the basin × time × zone cube (netcdf.ts). */
async function netcdfCube(target: string, meta: Record<string, string>, shape: CubeShape): Promise<Sink> {
  const h5 = await hdf5Library();
  const tmp = tempBeside(target);
  const f = new h5.File(tmp, 'w');
  let opened = true;
  const close = () => {
    if (opened) f.close();
    opened = false;
  };
  const cube = new NetcdfCube(f, shape, meta);
  return {
    async basin(pourpoint, body) {
      cube.basin(pourpoint, body);
    },
    async chunkEnd() {},
    async finish() {
      close();
      const fh = await open(tmp, 'r+');
      await fh.sync();
      await fh.close();
      await putInPlace(tmp, target, false);
    },
    async abort() {
      close();
      await rm(tmp, { force: true });
    },
  };
}

/** The sink of a format and layout, writing to `target`. */
export function sinkFor(
  format: Format,
  layout: Layout,
  target: string,
  meta: Record<string, string>,
  shape: CubeShape,
  wide: { stat?: string | undefined; day?: string | undefined } = {},
): Promise<Sink> {
  if (format === 'netcdf') return netcdfCube(target, meta, shape);
  if (layout === 'date-by-basin') return csvDateByBasin(target, shape, wide.stat);
  if (layout === 'year-by-band') return csvYearByBand(target, shape, wide.stat, wide.day ?? '04-01');
  if (format === 'parquet') return parquetLong(target, meta);
  if (layout === 'long') return csvLong(target);
  return csvFolder(target, layout === 'by-basin' ? 'basin' : 'date');
}
