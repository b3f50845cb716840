import { mkdir, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Database } from '../db/database.js';
import { debrisRoots, sweepDebris } from '../db/debris.js';
import { createdConfigPath, datasetDir, datasetPaths } from '../db/layout.js';
import { SnowdbError } from '../errors.js';
import { pathExists } from '../io/fs.js';
import { localStore } from '../io/store.js';
import { type Coverage, readIndex, writeIndex } from '../pourpoints/index-file.js';
import { type BuildAction, buildAreaRaster } from './artifacts.js';
import { readDatasetConfig, writeDatasetConfig } from './config.js';
import { rasterizeBasins, refreshCoverageIndexes } from './rasterize.js';
import { checkDatasetName, openDataset, openLink } from './registry.js';
import { TEMPLATE_NAMES, TEMPLATES } from './templates.js';

export interface CreateReport {
  readonly name: string;
  readonly template: string;
  readonly dir: string;
  /** The dataset config was written now (false: an earlier create had written it). */
  readonly configWritten: boolean;
  /** Registered now (false: it already was, and its registration was left alone). */
  readonly registered: boolean;
  readonly areaRaster: BuildAction;
  /** AOI rasters by what happened to them. */
  readonly aoi: Readonly<Record<BuildAction, number>>;
  /** Basins by coverage. */
  readonly coverage: Readonly<Record<Coverage, number>>;
}

const count = <K extends string>(keys: readonly K[], values: readonly K[]) =>
  Object.fromEntries(keys.map((k) => [k, values.filter((v) => v === k).length])) as Record<K, number>;

/**
 * `dataset create`: stage `data/<name>/` (config, area raster, one AOI raster per covered basin),
 * fold each basin's coverage into the index, then register the dataset inactive (root config
 * last). Convergent: a second run rebuilds nothing that is current and leaves the registration.
 * @throws SnowdbError `invalid-name`, `usage-error` (unknown template), `invalid-config` (the
 *   name is registered to another config, or `data/<name>/` holds another template).
 */
export async function createDataset(
  db: Database,
  name: string,
  template: string,
  onProgress?: (done: number, total: number) => void,
): Promise<CreateReport> {
  checkDatasetName(name);
  const spec = TEMPLATES[template];
  if (spec === undefined) {
    throw new SnowdbError(
      'usage-error',
      `unknown template '${template}' (templates: ${TEMPLATE_NAMES.join(', ')})`,
    );
  }
  const linkPath = createdConfigPath(name);
  const existing = db.config.datasets[name];
  if (existing !== undefined && resolve(db.root, existing.path) !== resolve(db.root, linkPath)) {
    throw new SnowdbError(
      'invalid-config',
      `dataset '${name}' is already registered with the config ${existing.path}`,
    );
  }
  const configPath = join(db.root, linkPath);
  const dir = datasetDir(db.root, linkPath);
  await sweepDebris(debrisRoots(db, [{ paths: { dir } }]), { tmp: false });
  const present = await pathExists(configPath);
  if (present) {
    const cfg = await readDatasetConfig(localStore, configPath);
    if (cfg.template !== template) {
      throw new SnowdbError(
        'invalid-config',
        `${configPath} holds template '${cfg.template ?? 'none'}', not '${template}'`,
      );
    }
  } else {
    await mkdir(datasetPaths(dir).aoiDir, { recursive: true });
    await mkdir(datasetPaths(dir).datesDir, { recursive: true });
    await writeDatasetConfig(configPath, spec);
  }
  const link = existing ?? { path: linkPath, active: false };
  const d = await openLink(db, name, link);
  const areaRaster = await buildAreaRaster(d);
  const index = await readIndex(db.store, db.paths.pourpointIndex);
  const { rows, entries, fresh } = await rasterizeBasins(db, [...index.values()], [d], { onProgress });
  await writeIndex(db.paths.pourpointIndex, entries);
  await refreshCoverageIndexes([d], entries, fresh);
  if (existing === undefined)
    await db.saveConfig({ ...db.config, datasets: { ...db.config.datasets, [name]: link } });
  return {
    name,
    template,
    dir,
    configWritten: !present,
    registered: existing === undefined,
    areaRaster,
    aoi: count(
      ['built', 'current', 'removed', 'outside'],
      rows.map((r) => r.action),
    ),
    coverage: count(
      ['full', 'partial', 'none'],
      rows.map((r) => r.coverage),
    ),
  };
}

/**
 * `dataset register`: record an external dataset config, inactive, without staging anything.
 * Coverage for it reads `none` until `pourpoint reindex`.
 */
export async function registerDataset(db: Database, name: string, configPath: string): Promise<string> {
  checkDatasetName(name);
  const abs = resolve(configPath);
  const st = await stat(abs).catch(() => null);
  if (st === null || !st.isFile()) throw new SnowdbError('invalid-config', `${configPath}: no such file`);
  await readDatasetConfig(localStore, abs);
  const rel = relative(db.root, abs);
  const path = rel.startsWith('..') || isAbsolute(rel) ? abs : rel;
  await db.saveConfig({ ...db.config, datasets: { ...db.config.datasets, [name]: { path, active: false } } });
  return path;
}

/** `dataset activate` / `deactivate`: flip the flag in the root config. Returns whether it changed. */
export async function setDatasetActive(db: Database, name: string, active: boolean): Promise<boolean> {
  const d = await openDataset(db, name);
  if (d.link.active === active) return false;
  await db.saveConfig({ ...db.config, datasets: { ...db.config.datasets, [name]: { ...d.link, active } } });
  return true;
}
