import { AsyncLru } from '../util/lru.js';
import type { TypedArray } from './dtype.js';

/**
 * A bounded LRU of decoded tiles, keyed by source and tile: promises, so concurrent readers of
 * one tile share one fetch; a promise that rejects is forgotten. Sized by decoded bytes.
 */
export class TileCache extends AsyncLru<TypedArray> {
  /** @param maxBytes upper bound of decoded bytes held (default 256 MiB). */
  constructor(maxBytes = 256 * 1024 * 1024) {
    super(maxBytes, (t) => t.byteLength);
  }
}
