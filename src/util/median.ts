/** The median of numbers: the middle one, or the mean of the two middle ones (null for none). */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const h = (s.length - 1) / 2;
  return (s[Math.floor(h)]! + s[Math.ceil(h)]!) / 2;
}
