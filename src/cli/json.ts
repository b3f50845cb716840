/** JSON for stdout: indented 2 on a terminal, minified when piped (docs/reference.md#output-conventions). */
export function renderJson(value: unknown, tty: boolean): string {
  return tty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
}
