/**
 * Long synchronous work cut into slices of the event loop: a server's cheap requests are answered
 * between them. `Slicer.pause()` after each small step lets a turn of the loop in once the current
 * slice has run SLICE_MS, and stops there (rejects) when the signal has aborted.
 *
 * Slicers take turns: one slice per turn of the event loop, whichever slicer's turn it is (first
 * come, first served). Were each to yield on its own, every slicer waiting would run its slice in
 * the same turn, and 20 large answers being written would hold the loop 20 × SLICE_MS between two
 * polls for I/O: a cheap request waited that long (BENCHMARKS.md, issue 47).
 */

/** Most of a turn of the event loop one slice of work takes before it lets other work in, ms. */
export const SLICE_MS = 8;

/**
 * Slicers waiting for a turn, oldest first, and whether a turn is booked. This describes the
 * thread's event loop (one per thread), not a cache: it holds nothing but who is next.
 */
const waiting: (() => void)[] = [];
let booked = false;

/** One turn: the oldest waiter runs its slice (in this turn's microtasks); the next one, next turn. */
function turn(): void {
  booked = false;
  waiting.shift()?.();
  book();
}

/** Book a turn for the waiters (setImmediate: I/O callbacks of the loop run before it). */
function book(): void {
  if (booked || waiting.length === 0) return;
  booked = true;
  setImmediate(turn);
}

export class Slicer {
  private since = performance.now();

  constructor(private readonly signal?: AbortSignal) {}

  /** Whether this slice has run its time: then `await yieldTurn()`. */
  get due(): boolean {
    return performance.now() - this.since > SLICE_MS;
  }

  /** Wait for this slicer's next turn of the event loop, then start a new slice. */
  async yieldTurn(): Promise<void> {
    await new Promise<void>((r) => {
      waiting.push(r);
      book();
    });
    this.signal?.throwIfAborted();
    this.since = performance.now();
  }

  /** After a step: yield a turn when the slice is due. */
  async pause(): Promise<void> {
    if (this.due) await this.yieldTurn();
  }
}
