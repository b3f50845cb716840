/**
 * Reusable grid-sized buffers, one set per thread: a decoder that fills a whole grid per date (46
 * MB for a SNODAS product, 44 MB for a SWANN variable) borrows one instead of allocating afresh.
 * glibc maps every allocation past 32 MB fresh, and first touch of its pages cost ~150 ms per 46
 * MB on the VMs measured, more than inflating the grid (BENCHMARKS.md, 2026-11-26). A borrowed
 * buffer is the caller's until `fn` settles: only for data nobody keeps past it (an ingest's
 * emit writes the COG and lets go). Borrowers at once (jobs interleaving on one thread) each get
 * their own; buffers come back to a free list of at most `KEEP`.
 */
const KEEP = 2;
const free: Buffer[] = [];

/** Run `fn` with a buffer of at least `bytes` (its first `bytes` given; contents undefined). */
export async function withScratch<T>(bytes: number, fn: (buf: Buffer) => Promise<T>): Promise<T> {
  const i = free.findIndex((b) => b.length >= bytes);
  const buf = i >= 0 ? free.splice(i, 1)[0]! : Buffer.allocUnsafeSlow(bytes);
  try {
    return await fn(buf.subarray(0, bytes));
  } finally {
    if (free.length < KEEP) free.push(buf);
  }
}
