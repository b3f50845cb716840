/** Code-unit order of strings (stable across locales): triplets, dataset names, keys. */
export function byString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
