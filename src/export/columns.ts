/**
 * A Parquet column's values while its row group fills: numbers in a typed array (NaN stands for
 * null: an answer's numbers are never NaN), texts as strings. A row group of a water year of
 * every basin is 10⁵ rows × a dozen columns: boxed in JS arrays each number was a heap object
 * for the garbage collector; typed, a column is one buffer, handed to the writer as it is.
 */

/** What a column holds: text, a DATE (days since 1970-01-01), or a float64. */
export type ColumnKind = 'STRING' | 'DATE' | 'DOUBLE';

export class ColumnBuffer {
  private nums: Float64Array | Int32Array;
  private texts: (string | null)[] = [];
  /** Values held. */
  length = 0;

  constructor(readonly kind: ColumnKind) {
    this.nums = kind === 'DATE' ? new Int32Array(1024) : new Float64Array(kind === 'DOUBLE' ? 1024 : 0);
  }

  push(v: string | number | null): void {
    if (this.kind === 'STRING') {
      this.texts.push(v === null ? null : String(v));
      this.length++;
      return;
    }
    if (this.length === this.nums.length) {
      const grown =
        this.kind === 'DATE' ? new Int32Array(this.length * 2) : new Float64Array(this.length * 2);
      grown.set(this.nums);
      this.nums = grown;
    }
    this.nums[this.length++] = v === null ? Number.NaN : Number(v);
  }

  /**
   * The first `rows` values as the writer takes them (a typed array; an array with nulls where a
   * float column has any), the rest kept for the next row group.
   */
  take(rows: number): (string | null)[] | Float64Array | Int32Array | (number | null)[] {
    const n = Math.min(rows, this.length);
    this.length -= n;
    if (this.kind === 'STRING') return this.texts.splice(0, n);
    const out = this.nums.slice(0, n);
    this.nums.copyWithin(0, n, n + this.length);
    if (this.kind === 'DATE') return out;
    for (let i = 0; i < n; i++)
      if (Number.isNaN(out[i]!)) return Array.from(out, (v) => (Number.isNaN(v) ? null : v));
    return out;
  }
}
