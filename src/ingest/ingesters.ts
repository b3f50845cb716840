import type { Dataset } from '../datasets/registry.js';
import { snodasIngester } from './snodas.js';
import { swannIngester } from './swann.js';
import type { Ingester } from './types.js';

/** The ingester a dataset's config names. */
export function ingesterFor(d: Dataset): Ingester {
  switch (d.config.ingester) {
    case 'snodas':
      return snodasIngester;
    case 'swann':
      return swannIngester;
    default:
      throw new Error(`ingester ${d.config.ingester} is not built yet`);
  }
}
