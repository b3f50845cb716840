/**
 * Named groups of basins (`pourpoints/groups.json`): a group `group:<name>` answers every query a
 * basin does, over the union of its members' polygons (overlaps counted once, polygon-clipping),
 * with exact coverage computed as for a drawn polygon. The union is kept per members' geometry.
 */
import { join } from 'node:path';
import polygonClipping, { type MultiPolygon } from 'polygon-clipping';
import { z } from 'zod';
import type { Database } from '../db/database.js';
import { parseJsonAs } from '../db/json-file.js';
import { SnowdbError } from '../errors.js';
import { writeJsonAtomic } from '../io/atomic.js';
import { readFileIfExists } from '../io/fs.js';
import type { AreaGeometry } from '../raster/geometry.js';
import { polygonsOf } from '../raster/geometry.js';
import { indexOf, readStoredBasin } from './store.js';
import { checkTriplet, SET_NAME_PATTERN } from './triplet.js';

/** The set name group ids use: `group:<name>`. */
export const GROUP_SET = 'group';

const GroupsSchema = z.strictObject({
  resource: z.literal('snowdb.groups/v1'),
  groups: z.record(
    z.string(),
    z.strictObject({ members: z.array(z.string()).min(2), created_at: z.string() }),
  ),
});
export type Groups = z.infer<typeof GroupsSchema>['groups'];

const groupsFile = (db: Database) => join(db.root, 'pourpoints', 'groups.json');

/** The database's groups (none when the file is absent). @throws SnowdbError `invalid-config`. */
export async function readGroups(db: Database): Promise<Groups> {
  const bytes = await readFileIfExists(db.store, groupsFile(db));
  if (bytes === null) return {};
  return parseJsonAs(bytes.toString('utf8'), groupsFile(db), GroupsSchema, 'a groups file').groups;
}

/**
 * Create (or with `replace`, redefine) a group of indexed basins.
 * @throws SnowdbError `usage-error` for a bad name, fewer than two members or an existing group; `pourpoint-not-found`.
 */
export async function createGroup(
  db: Database,
  name: string,
  members: readonly string[],
  opts: { replace?: boolean; now?: Date } = {},
): Promise<{ name: string; members: string[] }> {
  if (!SET_NAME_PATTERN.test(name))
    throw new SnowdbError(
      'usage-error',
      `group name '${name}': lower-case letters, digits and '-', starting with a letter (at most 32)`,
    );
  const wanted = [...new Set(members.map((m) => checkTriplet(m)))].sort();
  if (wanted.length < 2) throw new SnowdbError('usage-error', 'a group needs at least two basins');
  const index = await indexOf(db);
  for (const m of wanted)
    if (!index.has(m))
      throw new SnowdbError(
        'pourpoint-not-found',
        `no pourpoint ${m} in the index (see 'snowdb pourpoint list')`,
      );
  const groups = await readGroups(db);
  if (groups[name] && !opts.replace)
    throw new SnowdbError(
      'usage-error',
      `group '${name}' exists (${groups[name].members.join(', ')}); give --replace to redefine it`,
    );
  groups[name] = { members: wanted, created_at: (opts.now ?? new Date()).toISOString() };
  await writeJsonAtomic(groupsFile(db), { resource: 'snowdb.groups/v1', groups });
  return { name, members: wanted };
}

/** Remove a group. @throws SnowdbError `pourpoint-not-found` for an unknown group. */
export async function removeGroup(db: Database, name: string): Promise<void> {
  const groups = await readGroups(db);
  if (!groups[name])
    throw new SnowdbError('pourpoint-not-found', `no group '${name}' (see 'snowdb group list')`);
  delete groups[name];
  await writeJsonAtomic(groupsFile(db), { resource: 'snowdb.groups/v1', groups });
}

/** How removing basins changes the groups: a group keeps its other members, or goes below two. */
export interface GroupChange {
  readonly group: string;
  /** The removed basins it held. */
  readonly losing: readonly string[];
  /** What is left of it; fewer than two members removes the group. */
  readonly left: readonly string[];
}

/** The groups that hold any of `ids` (pure over the groups file). */
export function groupChanges(groups: Groups, ids: readonly string[]): GroupChange[] {
  const gone = new Set(ids);
  return Object.entries(groups)
    .filter(([, g]) => g.members.some((m) => gone.has(m)))
    .map(([group, g]) => ({
      group,
      losing: g.members.filter((m) => gone.has(m)),
      left: g.members.filter((m) => !gone.has(m)),
    }))
    .sort((a, b) => (a.group < b.group ? -1 : 1));
}

/** Apply `changes`: each group keeps what is left of it, or is removed with fewer than two. */
export async function applyGroupChanges(db: Database, changes: readonly GroupChange[]): Promise<void> {
  if (changes.length === 0) return;
  const groups = await readGroups(db);
  for (const c of changes) {
    const g = groups[c.group];
    if (g === undefined) continue;
    if (c.left.length < 2) delete groups[c.group];
    else groups[c.group] = { ...g, members: [...c.left] };
  }
  await writeJsonAtomic(groupsFile(db), { resource: 'snowdb.groups/v1', groups });
}

/** A change said in words: `group:west loses A:UT:X (2 left)` or `… (removed: 1 left)`. */
export const describeGroupChange = (c: GroupChange): string =>
  `group:${c.group} loses ${c.losing.join(', ')} (${c.left.length < 2 ? `removed: ${c.left.length} member left` : `${c.left.length} members left`})`;

/** The members of `group:<name>`. @throws SnowdbError `pourpoint-not-found`. */
export async function groupMembers(db: Database, id: string): Promise<string[]> {
  const name = id.slice(GROUP_SET.length + 1);
  const g = (await readGroups(db))[name];
  if (!g) throw new SnowdbError('pourpoint-not-found', `no group '${name}' (see 'snowdb group list')`);
  return g.members;
}

/** The union of basins' polygons as one MultiPolygon (lon/lat; overlaps once). */
export async function unionOf(db: Database, members: readonly string[]): Promise<AreaGeometry> {
  const parts = await Promise.all(
    members.map(async (m) => polygonsOf((await readStoredBasin(db, m)).basin) as unknown as MultiPolygon),
  );
  const [first, ...rest] = parts;
  return { type: 'MultiPolygon', coordinates: polygonClipping.union(first!, ...rest) };
}
