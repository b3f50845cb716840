// The numbers behind the view on show, as a table and as CSV or JSON downloads of exactly those
// rows and columns (in the units on show).

/** Fill `table` with `shown` = {columns: [label…], rows: [[value…]…], name}. Numbers go through `fmt`. */
export function renderTable(table, shown, fmt) {
  table.replaceChildren(...(table.caption ? [table.caption] : []));
  if (!shown) return;
  const head = table.createTHead().insertRow();
  for (const c of shown.columns) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = c;
    head.append(th);
  }
  const body = table.createTBody();
  for (const row of shown.rows) {
    const tr = body.insertRow();
    for (const v of row) tr.insertCell().textContent = typeof v === 'number' ? fmt(v) : (v ?? '');
  }
}

/** A CSV field, quoted where needed; text a spreadsheet would run as a formula gets a leading `'`. */
const csvField = (v) => {
  if (v === null || v === undefined) return '';
  const formula = typeof v === 'string' && (/^[=@\t\r]/.test(v) || /^[+-].*[=+\-*/^&(!|@]/.test(v));
  const s = formula ? `'${v}` : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/**
 * The shown table as CSV text (full precision, header first): a UTF-8 byte-order mark and CRLF
 * rows, so Excel reads "7000–8000 ft" and "m³" as written.
 */
export const toCsv = (shown) =>
  `\ufeff${[shown.columns, ...shown.rows].map((r) => r.map(csvField).join(',')).join('\r\n')}\r\n`;

/** The shown table as JSON: one object per row keyed by column label. */
export const toJson = (shown) =>
  `${JSON.stringify(
    shown.rows.map((r) => Object.fromEntries(shown.columns.map((c, i) => [c, r[i] ?? null]))),
    null,
    1,
  )}\n`;

/** Point the download links at the shown table (blob URLs, named for the basin and view). */
export function setDownloads(csvLink, jsonLink, shown) {
  for (const [a, text, type, ext] of [
    [csvLink, shown && toCsv(shown), 'text/csv', 'csv'],
    [jsonLink, shown && toJson(shown), 'application/json', 'json'],
  ]) {
    if (a.href.startsWith('blob:')) URL.revokeObjectURL(a.href);
    if (!shown) {
      a.href = '#numbers';
      a.removeAttribute('download');
      a.setAttribute('aria-disabled', 'true');
      continue;
    }
    a.href = URL.createObjectURL(new Blob([text], { type }));
    a.download = `${shown.name}.${ext}`;
    a.removeAttribute('aria-disabled');
  }
}
