import type { CohortRecord } from '../shared/db/cohorts';
import type { FeatureFlagRecord } from '../shared/db/feature-flags';
import { flagCohortsSize } from '../shared/domain/cohorts/flag-cohorts';
import { CohortGraph } from '../shared/domain/cohorts/graph';
import { cohortLimits } from '../shared/domain/cohorts/limits';
import { ValidationError } from '../shared/http/errors';

/**
 * The bounds a cohort write must keep (domain/cohorts/limits.ts): the expanded size of the cohort,
 * of every cohort that names it and of every active flag that uses them; the number of live dynamic
 * cohorts of the project. Each is a 400 `invalid_input`.
 */

const { expandedSize: maxSize, dynamicPerProject } = cohortLimits;

const tooLarge = (what: string, size: number): ValidationError =>
  new ValidationError(
    'invalid_input',
    `${what} ${size} filters and groups once nested cohorts are written out in place; at most ${maxSize} are allowed. Name fewer cohorts, or cohorts with fewer filters.`,
    'filters',
  );

/**
 * `cohort` as the write leaves it, against the project's stored cohorts and flags. Only what the write
 * grows is refused: a definition stored before the cap can still be made smaller.
 */
export function checkExpansion(
  cohort: Pick<CohortRecord, 'id' | 'name' | 'deleted' | 'is_static' | 'filters' | 'groups'>,
  projectCohorts: readonly CohortRecord[],
  flags: readonly FeatureFlagRecord[],
): void {
  const before = new CohortGraph(projectCohorts);
  const after = before.with(cohort);
  const sizeBefore = (id: number) => (before.get(id) ? before.expandedSize(id) : 0);
  const own = after.expandedSize(cohort.id);
  if (own > maxSize && own > sizeBefore(cohort.id)) throw tooLarge('This cohort would hold', own);
  for (const id of after.reaching(cohort.id)) {
    const size = after.expandedSize(id);
    if (size > maxSize && size > sizeBefore(id))
      throw tooLarge(
        `Cohort ${id} (${after.get(id)?.name ?? 'Untitled cohort'}) names this one and would hold`,
        size,
      );
  }
  for (const flag of flags) {
    if (!flag.active || flag.deleted) continue;
    const size = flagCohortsSize(flag, after);
    if (size > maxSize && size > flagCohortsSize(flag, before))
      throw tooLarge(`The cohorts of feature flag "${flag.key}" would hold`, size);
  }
}

/** A write that makes a cohort live and dynamic (create, static → dynamic, undelete) within the bound. */
export function checkDynamicBound(cohortId: number, projectCohorts: readonly CohortRecord[]): void {
  const others = projectCohorts.filter(
    (other) => other.id !== cohortId && !other.deleted && !other.is_static,
  ).length;
  if (others >= dynamicPerProject)
    throw new ValidationError(
      'invalid_input',
      `A project may hold at most ${dynamicPerProject} dynamic cohorts (each is recalculated every 15 minutes). Make this cohort static, or delete another.`,
      null,
    );
}
