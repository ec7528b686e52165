import type { CohortRecord } from '../shared/db/cohorts';
import { listCohorts } from '../shared/db/cohorts';
import type { FeatureFlagRecord } from '../shared/db/feature-flags';
import { listFeatureFlags } from '../shared/db/feature-flags';
import { readGroupTypeMapping } from '../shared/db/group-types';
import { cohortIdsOfFlag } from '../shared/domain/cohorts/flag-cohorts';
import { CohortGraph } from '../shared/domain/cohorts/graph';
import type { PropertyGroup } from '../shared/domain/flags';
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
  /**
   * Every live dynamic cohort the active flags name, nested ones included: id → property tree. What
   * `/decide` evaluates against the person's properties and local evaluation sends (`send_cohorts`).
   */
  readonly cohorts: Readonly<Record<string, PropertyGroup>>;
  /** Live static cohorts the active flags name (nested included): membership is read per person. */
  readonly staticCohorts: readonly number[];
}

export function projectFlagsOf(
  projectId: number,
  stored: readonly FeatureFlagRecord[],
  groupTypeMapping: Readonly<Record<string, string>>,
  cohorts: readonly CohortRecord[] = [],
): ProjectFlags {
  const flags = stored.filter((flag) => !flag.deleted).sort((a, b) => a.id - b.id);
  const active = flags.filter((flag) => flag.active);
  const graph = new CohortGraph(cohorts);
  const referenced = active.flatMap(cohortIdsOfFlag);
  return {
    cohorts: graph.definitionsFor(referenced),
    staticCohorts: graph.staticAmong(referenced),
    projectId,
    flags,
    active,
    personNeeds: new Map(active.map((flag) => [flag.key, personNeedsOf(flag)])),
    groupTypeMapping,
  };
}

/**
 * Two Queries of the project's partition, its flags and its group types, and a third for its cohorts
 * only when an active flag names one.
 */
export async function loadProjectFlags(tableName: string, projectId: number): Promise<ProjectFlags> {
  const [stored, groupTypeMapping] = await Promise.all([
    listFeatureFlags(tableName, projectId),
    readGroupTypeMapping(tableName, projectId),
  ]);
  const namesCohorts = stored.some(
    (flag) => flag.active && !flag.deleted && cohortIdsOfFlag(flag).length > 0,
  );
  const cohorts = namesCohorts ? await listCohorts(tableName, projectId) : [];
  return projectFlagsOf(projectId, stored, groupTypeMapping, cohorts);
}
