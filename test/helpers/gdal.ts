import { type ChildProcessWithoutNullStreams, execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** Debian's python (the pyenv python3 first on PATH has no GDAL bindings). */
const PYTHON = '/usr/bin/python3';
const script = (name: string) => fileURLToPath(new URL(`../../../test/oracle/${name}`, import.meta.url));

/**
 * One long-lived oracle process (test/oracle/serve.py): GDAL and numpy are imported once, not
 * once per call. Calls are answered in order; a process serves one call at a time.
 */
class OracleProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: { resolve: (s: string) => void; reject: (e: Error) => void }[] = [];
  private parts: Buffer[] = [];
  private have = 0;
  /** The answer being read, once its head line is in. */
  private body: { failed: boolean; bytes: number } | undefined;
  private stderr = '';

  constructor() {
    this.child = spawn(PYTHON, [script('serve.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (c: Buffer) => this.read(c));
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d));
    this.hold(false);
    this.child.on('close', (code) => {
      for (const w of this.waiting.splice(0)) w.reject(new Error(`oracle exited (${code}): ${this.stderr}`));
    });
  }

  /**
   * Keep the test process alive while a call is out; idle, the process may end (the oracle then
   * reads end of input and exits).
   */
  private hold(on: boolean): void {
    for (const h of [this.child, this.child.stdin, this.child.stdout, this.child.stderr] as unknown as {
      ref(): void;
      unref(): void;
    }[])
      on ? h.ref() : h.unref();
  }

  /** Close its input and keep this process alive until it has exited. */
  end(): void {
    this.hold(true);
    this.child.stdin.end();
  }

  get busy(): number {
    return this.waiting.length;
  }

  call(args: readonly string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.waiting.length === 0) this.hold(true);
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify(args)}\n`);
    });
  }

  /** Answers are `<n>\n` or `E<n>\n`, then n bytes (gathered in parts: answers reach tens of MB). */
  private read(chunk: Buffer): void {
    this.parts.push(chunk);
    this.have += chunk.length;
    for (;;) {
      if (this.body === undefined) {
        const head = Buffer.concat(this.parts);
        const nl = head.indexOf(10);
        if (nl < 0) return;
        const text = head.subarray(0, nl).toString('latin1');
        this.body = { failed: text.startsWith('E'), bytes: Number(text.replace('E', '')) };
        this.parts = [head.subarray(nl + 1)];
        this.have = head.length - nl - 1;
      }
      if (this.have < this.body.bytes) return;
      const all = Buffer.concat(this.parts);
      const text = all.subarray(0, this.body.bytes).toString('utf8');
      const { failed } = this.body;
      this.parts = [all.subarray(this.body.bytes)];
      this.have = all.length - this.body.bytes;
      this.body = undefined;
      const w = this.waiting.shift()!;
      if (this.waiting.length === 0) this.hold(false);
      if (failed) w.reject(new Error(`oracle failed:\n${text}`));
      else w.resolve(text);
    }
  }
}

/** At most two oracle processes per test process (calls in parallel use both cores). */
const processes: OracleProcess[] = [];
// When the test process has nothing left to do, end the oracles and wait for them: a child
// reaped by its parent has its CPU time counted in the parent's (GNU time, `npm run test:cpu`).
process.on('beforeExit', () => {
  for (const p of processes.splice(0)) p.end();
});
function idlest(): OracleProcess {
  const free = processes.find((p) => p.busy === 0);
  if (free) return free;
  if (processes.length < 2) {
    const p = new OracleProcess();
    processes.push(p);
    return p;
  }
  return processes.reduce((a, b) => (b.busy < a.busy ? b : a));
}

/** Run an oracle script and parse its JSON answer. Fails loudly when GDAL is missing. */
async function runOracle<T>(name: string, args: readonly string[]): Promise<T> {
  return JSON.parse(await idlest().call([name, ...args])) as T;
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
