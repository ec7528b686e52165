import type { FeatureFlagRecord } from '../shared/db/feature-flags';
import { listFeatureFlags } from '../shared/db/feature-flags';
import { readGroupTypeMapping } from '../shared/db/group-types';
import type { PersonNeeds } from './person-needs';
import { personNeedsOf } from './person-needs';

/**
 * A project's flag definitions as the flags endpoints use them, read once and shared by every request
 * of the container while fresh (see ProjectFlagsCache).
 */
export interface ProjectFlags {
  readonly projectId: number;
  /** Flags not deleted, active or not, by id: what local evaluation is served. */
  readonly flags: readonly FeatureFlagRecord[];
  /** Active flags, by id: what `/decide` and `/flags` evaluate. */
  readonly active: readonly FeatureFlagRecord[];
  /** What each active flag reads of the stored person, by flag key. */
  readonly personNeeds: ReadonlyMap<string, PersonNeeds>;
  /** Group type index (as a string) → name. */
  readonly groupTypeMapping: Readonly<Record<string, string>>;
}

export function projectFlagsOf(
  projectId: number,
  stored: readonly FeatureFlagRecord[],
  groupTypeMapping: Readonly<Record<string, string>>,
): ProjectFlags {
  const flags = stored.filter((flag) => !flag.deleted).sort((a, b) => a.id - b.id);
  const active = flags.filter((flag) => flag.active);
  return {
    projectId,
    flags,
    active,
    personNeeds: new Map(active.map((flag) => [flag.key, personNeedsOf(flag)])),
    groupTypeMapping,
  };
}

/** Two Queries of the project's partition: its flags and its group types. */
export async function loadProjectFlags(tableName: string, projectId: number): Promise<ProjectFlags> {
  const [stored, groupTypeMapping] = await Promise.all([
    listFeatureFlags(tableName, projectId),
    readGroupTypeMapping(tableName, projectId),
  ]);
  return projectFlagsOf(projectId, stored, groupTypeMapping);
}
