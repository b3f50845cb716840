import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** Debian's python (the pyenv python3 first on PATH has no GDAL bindings). */
const PYTHON = '/usr/bin/python3';
const script = (name: string) => fileURLToPath(new URL(`../../../test/oracle/${name}`, import.meta.url));

/** Run an oracle script and parse its JSON answer. Fails loudly when GDAL is missing. */
async function runOracle<T>(name: string, args: readonly string[]): Promise<T> {
  const { stdout } = await run(PYTHON, [script(name), ...args], { maxBuffer: 256 * 1024 * 1024 });
  return JSON.parse(stdout) as T;
}

/** The GDAL oracle (test/oracle/gdal_oracle.py). */
export const oracle = <T>(...args: string[]): Promise<T> => runOracle<T>('gdal_oracle.py', args);

/** The history oracle: normals, % of median, ranks, water-year summaries (test/oracle/history_oracle.py). */
export const historyOracle = <T>(...args: string[]): Promise<T> => runOracle<T>('history_oracle.py', args);

/** Run a GDAL command-line tool (gdal_translate, gdalinfo…). */
export async function gdalTool(tool: string, args: string[]): Promise<string> {
  const { stdout } = await run(tool, args, { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

export interface OracleInfo {
  path: string;
  cog_errors: string[];
  cog_warnings: string[];
  size: [number, number];
  geotransform: number[];
  proj4: string | null;
  epsg: string | null;
  nodata: number | 'nan' | null;
  metadata: Record<string, string>;
  description: string;
  overviews: number;
  block: [number, number];
  dtype: string;
  sha256: string;
}
