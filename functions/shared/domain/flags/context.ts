import { cohortEvaluationSteps } from '../cohorts/limits';
import { StepBudget } from './budget';
import type { CohortContext } from './cohorts';
import type { PropertyMatch } from './property-match';
import type { FeatureFlag, FlagEvaluationInput, PropertyBag } from './types';

/** Everything one flag's evaluation reads, resolved once. */
export interface FlagContext {
  readonly flag: FeatureFlag;
  readonly input: FlagEvaluationInput;
  /** `{distinct_id}` ∪ the person's properties (theirs win), as PostHog matches person filters. */
  readonly personProperties: PropertyBag;
  readonly cohorts: CohortContext;
  readonly now: Date;
}

/**
 * A record's own entry: request maps are user JSON, and a key like `constructor` must not reach
 * Object.prototype.
 */
export function own<T>(record: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return record && Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * `cohortMemo` holds the cohorts already matched for this person: shared by the flags of one request
 * (cohorts are person-level, so every flag gets the same answer). Each flag has its own step budget,
 * so one flag on an oversized cohort graph fails alone.
 */
export function flagContext(
  flag: FeatureFlag,
  input: FlagEvaluationInput,
  cohortMemo: Map<string, PropertyMatch> = new Map(),
): FlagContext {
  const now = input.now ?? new Date();
  const personProperties = { distinct_id: input.distinctId, ...input.personProperties };
  return {
    flag,
    input,
    personProperties,
    cohorts: {
      cohorts: input.cohorts ?? {},
      personProperties,
      now,
      memo: cohortMemo,
      budget: new StepBudget(cohortEvaluationSteps),
      ...(input.cohortMembership ? { membership: input.cohortMembership } : {}),
    },
    now,
  };
}
