/**
 * Long synchronous work cut into slices of the event loop: a server's cheap requests are answered
 * between them. `Slicer.pause()` after each small step lets a turn of the loop in once the current
 * slice has run SLICE_MS, and stops there (rejects) when the signal has aborted.
 */

/** Most of a turn of the event loop one slice of work takes before it lets other work in, ms. */
export const SLICE_MS = 8;

export class Slicer {
  private since = performance.now();

  constructor(private readonly signal?: AbortSignal) {}

  /** Whether this slice has run its time: then `await yieldTurn()`. */
  get due(): boolean {
    return performance.now() - this.since > SLICE_MS;
  }

  /** A turn of the event loop (setImmediate: I/O callbacks run first), then a new slice. */
  async yieldTurn(): Promise<void> {
    await new Promise((r) => setImmediate(r));
    this.signal?.throwIfAborted();
    this.since = performance.now();
  }

  /** After a step: yield a turn when the slice is due. */
  async pause(): Promise<void> {
    if (this.due) await this.yieldTurn();
  }
}
