import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** Debian's python (the pyenv python3 first on PATH has no GDAL bindings). */
const PYTHON = '/usr/bin/python3';
const ORACLE = fileURLToPath(new URL('../../../test/oracle/gdal_oracle.py', import.meta.url));

/** Run the GDAL oracle and parse its JSON answer. Fails loudly when GDAL is missing. */
export async function oracle<T>(...args: string[]): Promise<T> {
  const { stdout } = await run(PYTHON, [ORACLE, ...args], { maxBuffer: 256 * 1024 * 1024 });
  return JSON.parse(stdout) as T;
}

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
