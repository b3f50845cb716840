import { Option } from 'commander';
import { renderJson } from './json.js';
import type { Output } from './output.js';

/** Output format of listing commands: a table for people (default) or JSON. */
export type Format = 'table' | 'json';

/** `--format table|json`, default table. */
export function formatOption(): Option {
  return new Option('--format <format>', 'output format').choices(['table', 'json']).default('table');
}

/** Print a command's result on stdout: `json` as JSON (indented on a terminal), else `text()`. */
export function emit(out: Output, format: Format, json: unknown, text: () => string): void {
  out.data(format === 'json' ? renderJson(json, out.stdoutIsTty) : text());
}
