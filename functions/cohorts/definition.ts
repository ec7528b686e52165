import type { CohortRecord } from '../shared/db/cohorts';
import type { FeatureFlagRecord } from '../shared/db/feature-flags';
import type { DefinitionFacts } from '../shared/domain/cohorts/filters';
import { CohortDefinitionError, validateFilters, validateGroups } from '../shared/domain/cohorts/filters';
import { CohortGraph } from '../shared/domain/cohorts/graph';
import { cohortIdsOfFlag } from '../shared/domain/cohorts/flag-cohorts';
import { ValidationError } from '../shared/http/errors';
import { checkExpansion } from './limits';
import type { CohortWrite } from '../shared/schemas/cohort';

/**
 * The definition part of a cohort write, checked against the project: shape, cohort ids that exist
 * in the project, no loop of cohorts, the expanded size (limits.ts), and no behavioural filter
 * reaching a flag. Every
 * failure is a 400 `validation_error` with PostHog's wording.
 */

export interface Definition {
  readonly filters: Record<string, unknown> | null;
  readonly groups: unknown[];
}

const toHttp = (error: unknown): never => {
  if (error instanceof CohortDefinitionError)
    throw new ValidationError(error.code, error.message, error.attr);
  throw error;
};

/**
 * The definition the write leaves the cohort with (`current` for a PATCH, undefined on create). When
 * the cohort ends up live and dynamic, that whole definition is validated, whichever fields the write
 * sent: a static cohort turned dynamic, or a deleted one restored, brings a definition never checked.
 */
export function definitionOfWrite(
  body: CohortWrite,
  current: Definition | undefined,
  result: { readonly isStatic: boolean; readonly deleted: boolean },
): { definition: Definition; facts: DefinitionFacts | undefined } {
  const creating = current === undefined;
  let filters = current?.filters ?? null;
  let groups = current?.groups ?? [];
  let facts: DefinitionFacts | undefined;
  try {
    if (body.groups !== undefined && body.groups !== null) {
      const checked = result.isStatic ? undefined : validateGroups(body.groups);
      // PostHog normalises groups on create (every key present) and stores a PATCH's as sent.
      groups = creating && checked ? checked.groups : (body.groups as unknown[]);
      if (!Array.isArray(groups))
        throw new CohortDefinitionError('groups must be a list of groups.', 'groups');
    }
    // Static cohorts skip filter validation, as in PostHog (their members come from CSV uploads).
    if (body.filters !== undefined) filters = body.filters as Record<string, unknown> | null;
    if (!result.isStatic && !result.deleted)
      facts = filters !== null ? validateFilters(filters) : validateGroups(groups).facts;
  } catch (error) {
    toHttp(error);
  }
  return { definition: { filters, groups }, facts };
}

/** References, loops and flags: checked once the definition's own shape is valid. */
export function checkAgainstProject(
  cohort: Pick<CohortRecord, 'id' | 'name' | 'deleted' | 'is_static'> & Definition,
  facts: DefinitionFacts,
  projectCohorts: readonly CohortRecord[],
  flags: readonly FeatureFlagRecord[],
): void {
  const live = new Map(projectCohorts.filter((other) => !other.deleted).map((other) => [other.id, other]));
  for (const id of facts.cohortIds)
    if (!live.has(id) || id === cohort.id) {
      if (id === cohort.id)
        throw new ValidationError('invalid_input', 'Cohorts cannot reference other cohorts in a loop.');
      throw new ValidationError('invalid_input', 'Invalid Cohort ID in filter');
    }
  const graph = new CohortGraph(projectCohorts).with(cohort);
  if (graph.loopsBackTo(cohort.id, [...facts.cohortIds]))
    throw new ValidationError('invalid_input', 'Cohorts cannot reference other cohorts in a loop.');
  checkExpansion(cohort, projectCohorts, flags);

  // A cohort an active flag reaches may not become behavioural, itself or through a cohort it names.
  const activeFlags = flags.filter((flag) => flag.active && !flag.deleted);
  const reachedByFlags = new CohortGraph(projectCohorts).reachable(activeFlags.flatMap(cohortIdsOfFlag));
  if (!reachedByFlags.includes(cohort.id)) return;
  if (facts.behavioral)
    throw new ValidationError(
      'behavioral_cohort_found',
      'Behavioral filters cannot be added to cohorts used in feature flags.',
      'filters',
    );
  const dependency = graph.behavioralAmong(facts.cohortIds);
  if (dependency)
    throw new ValidationError(
      'behavioral_cohort_found',
      `A dependent cohort (${dependency.name ?? 'Untitled cohort'}) has filters based on events. These cohorts can't be used in feature flags.`,
      'filters',
    );
}
