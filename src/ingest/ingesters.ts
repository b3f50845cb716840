import type { Dataset } from '../datasets/registry.js';
import { snodasIngester } from './snodas.js';
import { spiresIngester } from './spires.js';
import { swannIngester } from './swann.js';
import type { Ingester } from './types.js';

/** The ingester a dataset's config names. */
export function ingesterFor(d: Dataset): Ingester {
  switch (d.config.ingester) {
    case 'snodas':
      return snodasIngester;
    case 'swann':
      return swannIngester;
    case 'spires':
      return spiresIngester;
  }
}
