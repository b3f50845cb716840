/** A CSV field: minimal quoting (RFC 4180). */
export const csvField = (v: string): string => (/[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v);

/** One CSV line (no line end). */
export const csvRow = (values: readonly string[]): string => values.map(csvField).join(',');
