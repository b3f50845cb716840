import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { aoiPath } from '../datasets/artifacts.js';
import { openActiveDataset } from '../datasets/registry.js';
import type { Database } from '../db/database.js';
import { DATES_DIR } from '../db/layout.js';
import { fileSignature } from '../io/memo.js';
import { indexedEntry } from '../pourpoints/store.js';
import { VERSION } from '../version.js';
import { enabledLayers, layerPath, ZONE_LAYERS } from '../zones/layers.js';
import { parseZoneTokens } from '../zones/tokens.js';
import type { StatsQuery } from './engine.js';

/**
 * A key that changes whenever the answer to `q` could: snowdb's version, the query itself, the
 * dataset config, the set of ingested dates (any ingest or re-ingest renames a folder in
 * `cogs/`), the basin's index entry and AOI raster, and the zone layers the query reads. Only
 * stats, no raster reads: cheap enough to answer If-None-Match before computing.
 * @throws SnowdbError as `computeStats` would for an unknown dataset, pourpoint or zone token.
 */
export async function statsStateKey(db: Database, q: StatsQuery): Promise<string> {
  const d = await openActiveDataset(db, q.dataset);
  const entry = indexedEntry(await db.index(), q.pourpoint);
  const axes = parseZoneTokens(q.zones ?? [], enabledLayers(d));
  const layers = axes.map((a) => layerPath(d, ZONE_LAYERS.find((l) => l.key === a.layer)!));
  const files = [d.configPath, join(d.dir, DATES_DIR), aoiPath(d, entry.triplet), ...layers];
  const signatures = await Promise.all(files.map(fileSignature));
  const query = {
    ...q,
    variables: [...new Set(q.variables ?? [])].sort(),
    includeEmptyZones: q.includeEmptyZones === true,
    validFraction: q.validFraction === true,
  };
  return createHash('sha256')
    .update(JSON.stringify([VERSION, query, entry, signatures]))
    .digest('base64url')
    .slice(0, 27);
}
