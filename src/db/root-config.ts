import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { writeJsonAtomic } from '../io/atomic.js';
import { parseJsonAs } from './json-file.js';
import { Layout } from './layout.js';

/** Resource type tag of the root config; bump the version on an incompatible change. */
export const ROOT_CONFIG_RESOURCE = 'snowdb.database/v1';

/** A registered dataset: where its config lives (relative to the root) and whether readers see it. */
export const DatasetLinkSchema = z.strictObject({
  path: z.string().min(1),
  active: z.boolean(),
});

export const RootConfigSchema = z.strictObject({
  resource: z.literal(ROOT_CONFIG_RESOURCE),
  created_at: z.iso.datetime(),
  datasets: z.record(z.string(), DatasetLinkSchema),
  pourpoints: z.strictObject({
    records: z.string().min(1),
    index: z.string().min(1),
  }),
});

export type RootConfig = z.infer<typeof RootConfigSchema>;
export type DatasetLink = z.infer<typeof DatasetLinkSchema>;

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
export async function readRootConfig(file: string): Promise<RootConfig> {
  return parseJsonAs(await readFile(file, 'utf8'), file, RootConfigSchema, 'a snowdb root config');
}

export async function writeRootConfig(file: string, config: RootConfig): Promise<void> {
  await writeJsonAtomic(file, config);
}
