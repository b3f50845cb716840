import { Option } from 'commander';
import { csvRow } from '../util/csv.js';
import { renderJson } from './json.js';
import { type Output, renderTable } from './output.js';

/** Output format of listing commands: a table for people (default), JSON, or CSV for listings. */
export type Format = 'table' | 'json' | 'csv';

/** `--format table|json` (listings: `|csv`), default table. */
export function formatOption(choices: readonly Format[] = ['table', 'json']): Option {
  return new Option('--format <format>', 'output format').choices(choices).default('table');
}

/** Print a listing: `json` as JSON, `csv` as a header and rows, else a table (or `empty` when none). */
export function emitRows(
  out: Output,
  format: Format,
  json: unknown,
  header: readonly string[],
  rows: readonly (readonly string[])[],
  empty?: string,
): void {
  if (format === 'csv') out.data([header, ...rows].map(csvRow).join('\n'));
  else
    emit(out, format, json, () =>
      rows.length === 0 && empty !== undefined ? empty : renderTable(header, rows),
    );
}

/** Print a command's result on stdout: `json` as JSON (indented on a terminal), else `text()`. */
export function emit(out: Output, format: Format, json: unknown, text: () => string): void {
  out.data(format === 'json' ? renderJson(json, out.stdoutIsTty) : text());
}

/** A repeatable option's values, in order (`--zone a --zone b`). */
export const collect = (v: string, prev: string[] = []): string[] => [...prev, v];
