/** JSON for stdout: indented 2 on a terminal, minified when piped (spec §4.2 rule 5). */
export function renderJson(value: unknown, tty: boolean): string {
  return tty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}
