import { Option } from 'commander';

/** Output format of listing commands: a table for people (default) or JSON. */
export type Format = 'table' | 'json';

/** `--format table|json`, default table. */
export function formatOption(): Option {
  return new Option('--format <format>', 'output format').choices(['table', 'json']).default('table');
}
