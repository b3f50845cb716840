import { z } from 'zod';
import { writeJsonAtomic } from '../io/atomic.js';
import { readExistingFile } from '../io/fs.js';
import type { Store } from '../io/store.js';
import { parseJsonAs } from './json-file.js';
import { Layout } from './layout.js';

/** Resource type tag of the root config; bump the version on an incompatible change. */
export const ROOT_CONFIG_RESOURCE = 'snowdb.database/v1';

/** A registered dataset: where its config lives (relative to the root) and whether readers see it. */
export const DatasetLinkSchema = z.strictObject({
  path: z.string().min(1),
  active: z.boolean(),
});

/** How `api serve` runs (each member overridden by its flag; docs/reference.md#limits). */
export const ApiConfigSchema = z.strictObject({
  /** The URL clients reach the API at (behind a proxy: the proxy's); links are built from it. */
  public_url: z.url({ protocol: /^https?$/ }).optional(),
  max_url_bytes: z.int().min(256).max(65_536).optional(),
  /** Expensive queries computing at once, and waiting. */
  concurrency: z.int().min(1).max(256).optional(),
  queue: z.int().min(0).max(100_000).optional(),
  /** Per-request time limit, s. */
  timeout_s: z.number().positive().max(86_400).optional(),
  max_zone_cells: z.int().min(1).optional(),
  /** Most numbers (dates × cells × columns) one answer may hold. */
  max_values: z.int().min(1).optional(),
});

export const RootConfigSchema = z.strictObject({
  resource: z.literal(ROOT_CONFIG_RESOURCE),
  created_at: z.iso.datetime(),
  datasets: z.record(z.string(), DatasetLinkSchema),
  pourpoints: z.strictObject({
    records: z.string().min(1),
    index: z.string().min(1),
  }),
  api: ApiConfigSchema.optional(),
});

export type RootConfig = z.infer<typeof RootConfigSchema>;
export type DatasetLink = z.infer<typeof DatasetLinkSchema>;
export type ApiConfig = z.infer<typeof ApiConfigSchema>;

/** A new root config stamped with `now` (UTC). */
export function newRootConfig(now: Date): RootConfig {
  return {
    resource: ROOT_CONFIG_RESOURCE,
    created_at: now.toISOString(),
    datasets: {},
    pourpoints: { records: Layout.pourpoints, index: Layout.pourpointIndex },
  };
}

/**
 * Read and validate a root config file.
 * @throws SnowdbError `invalid-config` naming the file and the first problem.
 */
export async function readRootConfig(store: Store, file: string): Promise<RootConfig> {
  return parseJsonAs(
    (await readExistingFile(store, file)).toString('utf8'),
    file,
    RootConfigSchema,
    'a snowdb root config',
  );
}

export async function writeRootConfig(file: string, config: RootConfig): Promise<void> {
  await writeJsonAtomic(file, config);
}
