import { cohortEvaluationSteps } from '../cohorts/limits';
import { StepBudget } from './budget';
import type { CohortContext } from './cohorts';
import type { PropertyMatch } from './property-match';
import { valueTexts } from './value-texts';
import type { ValueTexts } from './value-texts';
import type { FeatureFlag, FlagEvaluationInput, PropertyBag } from './types';

/** Everything one flag's evaluation reads, resolved once. */
export interface FlagContext {
  readonly flag: FeatureFlag;
  readonly input: FlagEvaluationInput;
  /** `{distinct_id}` ∪ the person's properties (theirs win), as PostHog matches person filters. */
  readonly personProperties: PropertyBag;
  /** Group type → `{$group_key}` ∪ the group's properties: shared by the flags of the evaluation. */
  readonly groupProperties: Map<string, PropertyBag>;
  /** What the filters derived from the values they matched, shared by the flags of the evaluation. */
  readonly texts: ValueTexts;
  /** This flag's rollout hash by bucketing identifier: every condition on one identifier hashes it once. */
  readonly rolloutHashes: Map<string, number>;
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
 * What the flags of one evaluation share, because it is the same person: built once, not once per
 * flag, so a request's properties cost their size once however many flags read them (copying them
 * per flag made a 1 MB body of 80,000 keys against 200 flags cost seconds).
 */
export interface SharedEvaluation {
  /** `{distinct_id}` ∪ the person's properties (theirs win), as PostHog matches person filters. */
  readonly personProperties: PropertyBag;
  /**
   * The cohorts already matched for this person (cohorts are person-level, so every flag gets the
   * same answer). Each flag has its own step budget, so one flag on an oversized cohort graph fails
   * alone.
   */
  readonly cohortMemo: Map<string, PropertyMatch>;
  /** Each group type's properties as its conditions match them, built at the first that needs them. */
  readonly groupProperties: Map<string, PropertyBag>;
  /** The texts filters derived from the values they matched. */
  readonly texts: ValueTexts;
}

export function sharedEvaluation(input: FlagEvaluationInput): SharedEvaluation {
  return {
    personProperties: { distinct_id: input.distinctId, ...input.personProperties },
    cohortMemo: new Map(),
    groupProperties: new Map(),
    texts: valueTexts(),
  };
}

export function flagContext(
  flag: FeatureFlag,
  input: FlagEvaluationInput,
  shared: SharedEvaluation = sharedEvaluation(input),
): FlagContext {
  const now = input.now ?? new Date();
  const { personProperties } = shared;
  return {
    flag,
    input,
    personProperties,
    groupProperties: shared.groupProperties,
    texts: shared.texts,
    rolloutHashes: new Map(),
    cohorts: {
      cohorts: input.cohorts ?? {},
      personProperties,
      now,
      memo: shared.cohortMemo,
      texts: shared.texts,
      budget: new StepBudget(cohortEvaluationSteps),
      ...(input.cohortMembership ? { membership: input.cohortMembership } : {}),
    },
    now,
  };
}
