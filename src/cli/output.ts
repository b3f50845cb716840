/** Where a command writes: data to stdout, progress and status to stderr (silenced by --quiet). */
export interface Output {
  /** Data: always printed, whatever --quiet says. */
  data(text: string): void;
  /** Status and progress lines on stderr; dropped with --quiet. */
  info(text: string): void;
  /** Warnings on stderr; printed even with --quiet. */
  warn(text: string): void;
  /** Raw text on stderr, no newline added (a progress bar redrawing its line). */
  raw(text: string): void;
  /** Styling helpers: identity unless colour is on. */
  readonly style: Style;
  /** True when stdout is a terminal (JSON is indented only then). */
  readonly stdoutIsTty: boolean;
  /** True when stderr is a terminal (progress bars animate only then). */
  readonly stderrIsTty: boolean;
  readonly quiet: boolean;
}

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
}

const ansi = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const colour: Style = {
  bold: ansi(1, 22),
  dim: ansi(2, 22),
  green: ansi(32, 39),
  red: ansi(31, 39),
  yellow: ansi(33, 39),
};
const plain: Style = { bold: (s) => s, dim: (s) => s, green: (s) => s, red: (s) => s, yellow: (s) => s };

/** An environment: the process's, or one a test passes to `runCli`. */
export type Env = Readonly<Record<string, string | undefined>>;

/** Colour only on a terminal, never with NO_COLOR set (any value) or TERM=dumb. */
export function colourWanted(isTty: boolean, env: Env): boolean {
  return isTty && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}

/** What a command writes to: a terminal or pipe (process.stdout), or a test's capture. */
export interface TextSink {
  write(text: string): unknown;
  readonly isTTY?: boolean | undefined;
}

export interface Streams {
  readonly stdout: TextSink;
  readonly stderr: TextSink;
}

/** An SGR colour sequence, or one control byte (C0 but the line end, DEL, CSI). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control bytes is its job
const CONTROL = /\x1b\[[0-9;]*m|[\x00-\x09\x0b-\x1f\x7f\x9b]/g;

/**
 * Text for a terminal with the control bytes a file or a server may have put in it shown as
 * escapes (`\x1b`, `\r`, …): only line ends and the colours snowdb itself writes (SGR) pass.
 */
export const visible = (s: string): string =>
  s.replace(CONTROL, (c) =>
    c.length > 1 || c === '\t' ? c : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );

export function makeOutput(streams: Streams, env: Env, quiet: boolean): Output {
  const stdoutIsTty = streams.stdout.isTTY === true;
  const stderrIsTty = streams.stderr.isTTY === true;
  const line = (s: string) => (s.endsWith('\n') ? s : `${s}\n`);
  return {
    data: (s) => void streams.stdout.write(line(s)),
    info: (s) => void (quiet ? undefined : streams.stderr.write(line(visible(s)))),
    warn: (s) => void streams.stderr.write(line(visible(s))),
    raw: (s) => void streams.stderr.write(s),
    style: colourWanted(stderrIsTty, env) ? colour : plain,
    stdoutIsTty,
    stderrIsTty,
    quiet,
  };
}

/** A plain text table: header row, then rows; columns padded to their widest cell. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [fmt(header), ...rows.map(fmt)].join('\n');
}
