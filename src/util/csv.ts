/** A number as CSV writes it (`-12.5`, `1e-7`): left as it is even when it starts with `-` or `+`. */
const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
/** What a spreadsheet runs as a formula: `=`, `@`, tab or CR first, whatever follows. */
const FORMULA_START = /^[=@\t\r]/;
/**
 * `+` or `-` first, then an operator, call or reference (`-2+3`, `+SUM(A1)`, `-1+cmd|' /C calc'!A0`);
 * a label such as `-1000–0 ft` (a band below sea level) calls nothing and stays as it is.
 */
const SIGNED_FORMULA = /^[+-].*[=+\-*/^&(!|@]/;

/**
 * A CSV field: minimal quoting (RFC 4180). A text cell a spreadsheet would run as a formula
 * (`=HYPERLINK(…)`, `@SUM(…)`, `-2+3`) is neutralised with a leading `'` (OWASP's rule); numbers
 * stay numbers.
 */
export const csvField = (v: string): string => {
  const s = (FORMULA_START.test(v) || SIGNED_FORMULA.test(v)) && !NUMBER.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/** One CSV line (no line end). */
export const csvRow = (values: readonly string[]): string => values.map(csvField).join(',');
