import type { FlagReason, FlagReasonCode } from './types';

/**
 * Why a flag has its value, as PostHog's flags service reports it (`FeatureFlagMatchReason`).
 * `no_condition_match_groups_not_evaluated` is reported as `no_condition_match` with a longer
 * description: some group conditions were skipped because the request named no group of their type.
 */
export type MatchReason =
  | 'super_condition_value'
  | 'holdout_condition_value'
  | 'condition_match'
  | 'out_of_rollout_bound'
  | 'no_condition_match'
  | 'no_condition_match_groups_not_evaluated'
  | 'no_group_type'
  | 'flag_disabled';

// When no condition matches, the highest-scoring reason seen is reported: an evaluated miss
// (rollout, properties) outranks a condition that could not apply (no group type).
const score: Readonly<Record<MatchReason, number>> = {
  super_condition_value: 6,
  holdout_condition_value: 5,
  condition_match: 4,
  out_of_rollout_bound: 3,
  no_condition_match: 2,
  no_condition_match_groups_not_evaluated: 2,
  no_group_type: 1,
  flag_disabled: 0,
};

export interface RankedReason {
  readonly reason: MatchReason;
  readonly conditionIndex: number | null;
}

/** A later condition with an equal score replaces the earlier one, as in PostHog. */
export function higherReason(current: RankedReason, next: RankedReason): RankedReason {
  return score[current.reason] <= score[next.reason] ? next : current;
}

const descriptions: Readonly<Record<MatchReason, string>> = {
  super_condition_value: 'Super condition value',
  holdout_condition_value: 'Holdout condition value',
  condition_match: 'Matched condition set',
  out_of_rollout_bound: 'Out of rollout bound',
  no_condition_match: 'No matching condition set',
  no_condition_match_groups_not_evaluated:
    'No matching condition set (group conditions were not evaluated because no group type was provided)',
  no_group_type: 'No group type',
  flag_disabled: 'Feature flag is disabled',
};

export function toFlagReason({ reason, conditionIndex }: RankedReason): FlagReason {
  const code: FlagReasonCode =
    reason === 'no_condition_match_groups_not_evaluated' ? 'no_condition_match' : reason;
  // Condition sets are numbered from 1 for people.
  const description =
    reason === 'condition_match'
      ? `Matched condition set ${(conditionIndex ?? 0) + 1}`
      : descriptions[reason];
  return { code, condition_index: conditionIndex, description };
}
