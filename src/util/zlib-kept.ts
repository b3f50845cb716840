/**
 * Node zlib streams driven synchronously through their handle's `writeSync` (the call Node's own
 * `zlibBufferSync` makes, stable from Node 12 to 26), one kept per key between calls and reset:
 * building and freeing a stream per call cost ~20 % of inflating a 16 KB series block and 60 % of
 * deflating a 2 KB one (BENCHMARKS.md). `inflate.ts` and `deflate.ts` drive them; a runtime
 * without the handle gets their public-API fallback.
 */

interface Handle {
  writeSync(
    flush: number,
    src: Uint8Array,
    inOff: number,
    inLen: number,
    out: Uint8Array,
    outOff: number,
    outLen: number,
  ): void;
  onerror: (message: string, errno: number, code?: string) => void;
}

/** What is used of a zlib stream beyond its typed API (`reset`, zlib's inflateReset / deflateReset, is public on every one). */
interface Internals {
  _handle?: Handle;
  _writeState?: Uint32Array;
  reset(): void;
}

/** One synchronous use of a kept stream. */
export interface Driven {
  /** `writeSync` of the handle: `flush` mode, input range, output range. */
  readonly write: Handle['writeSync'];
  /** [output room left, input left] after a `write`. */
  readonly state: Uint32Array;
  /** zlib's message when a `write` failed, else undefined. */
  failure(): string | undefined;
}

/**
 * Run `use` on the stream kept under `key` in `kept` (made by `make` when none), reset and kept
 * again when `use` returns; closed, never reused, when it throws. `portable` answers instead
 * where the runtime's streams lack the handle. Calls are synchronous: one stream per key and thread.
 */
export function withKeptStream<K, S extends { close(): void }, T>(
  kept: Map<K, S>,
  key: K,
  make: () => S,
  use: (z: Driven) => T,
  portable: () => T,
): T {
  const z = kept.get(key) ?? make();
  kept.delete(key); // taken: a failure below leaves it closed
  const { _handle: h, _writeState: state } = z as unknown as Internals;
  if (h === undefined || state === undefined || typeof h.writeSync !== 'function') {
    z.close();
    return portable();
  }
  let failure: string | undefined;
  h.onerror = (message) => {
    failure ??= message;
  };
  let ok = false;
  try {
    const result = use({ write: h.writeSync.bind(h), state, failure: () => failure });
    ok = true;
    return result;
  } finally {
    if (ok) {
      (z as unknown as Internals).reset();
      kept.set(key, z);
    } else z.close();
  }
}
