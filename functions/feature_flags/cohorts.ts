import { listCohorts } from '../shared/db/cohorts';
import { cohortIdOf } from '../shared/domain/cohorts/filters';
import { flagCohortsSize } from '../shared/domain/cohorts/flag-cohorts';
import { CohortGraph } from '../shared/domain/cohorts/graph';
import { cohortLimits } from '../shared/domain/cohorts/limits';
import type { FlagCondition, FlagFilters, PropertyFilter } from '../shared/domain/flags';
import { ValidationError } from '../shared/http/errors';

/**
 * The cohort conditions of a flag, checked against the project's cohorts as PostHog's flag
 * serializer does (`posthog/api/feature_flag.py`): every cohort must exist in the project (deleted ones count, as
 * in PostHog), and none may be behavioural, itself or through a cohort it names: flags evaluate
 * cohorts from person properties, and events cannot be read per request. Together they may hold at
 * most `cohortLimits.expandedSize` filters and groups, nested cohorts written out in place.
 */

const conditionsOf = (filters: FlagFilters): readonly FlagCondition[] => [
  ...(filters.groups ?? []),
  ...(Array.isArray(filters.super_groups) ? (filters.super_groups as FlagCondition[]) : []),
  ...(Array.isArray(filters.holdout_groups) ? (filters.holdout_groups as FlagCondition[]) : []),
];

export async function checkFlagCohorts(
  tableName: string,
  projectId: number,
  filters: FlagFilters,
): Promise<void> {
  const values = conditionsOf(filters)
    .flatMap((condition) => (condition.properties ?? []) as PropertyFilter[])
    .filter((property) => property.type === 'cohort')
    .map((property) => property.value);
  if (values.length === 0) return;
  const graph = new CohortGraph(await listCohorts(tableName, projectId));
  for (const value of values) {
    const id = cohortIdOf(value);
    if (id === undefined || !graph.get(id))
      throw new ValidationError(
        'cohort_does_not_exist',
        `Cohort with id ${(typeof value === 'object' ? JSON.stringify(value) : String(value)).slice(0, 100)} does not exist`,
        'filters',
      );
    const behavioral = graph.behavioralAmong([id]);
    if (behavioral)
      throw new ValidationError(
        'behavioral_cohort_found',
        `Cohort '${behavioral.name ?? ''}' with behavioral filters cannot be used in feature flags.`,
        'filters',
      );
  }
  const size = flagCohortsSize({ filters }, graph);
  if (size > cohortLimits.expandedSize)
    throw new ValidationError(
      'invalid_input',
      `The cohorts of this flag hold ${size} filters and groups once nested cohorts are written out in place; at most ${cohortLimits.expandedSize} are allowed. Use fewer cohorts, or cohorts with fewer filters.`,
      'filters',
    );
}
