import { CohortCycleError } from './cohorts';
import { conditionsOf, matchCondition } from './conditions';
import { flagContext, sharedEvaluation } from './context';
import type { FlagContext, SharedEvaluation } from './context';
import { toResult } from './decision';
import type { Decision } from './decision';
import { earlyAccessDecision } from './early-access';
import { holdoutDecision } from './holdout';
import { higherReason } from './reasons';
import type { RankedReason } from './reasons';
import { targetFor } from './targets';
import type {
  FeatureFlag,
  FlagEvaluationInput,
  FlagEvaluationResult,
  FlagsEvaluation,
  UnresolvedCause,
} from './types';
import { matchedVariant } from './variants';

type Pass = 'sdk' | 'server';

/**
 * The release conditions, in their stored order: the first that matches decides, its variant
 * override winning when it names a variant. Like posthog-node and today's flags service, conditions
 * are not reordered (the 2022 server tried variant overrides first). When none matches, the most
 * telling reason seen is reported (`higherReason`).
 *
 * The `sdk` pass decides as posthog-node's local evaluation would: it passes over conditions it
 * can't decide and returns undefined where it would ask the server. The `server` pass then decides
 * with the flags service's rules. So wherever an SDK evaluating locally gets a value, Flock returns
 * the same one, and where it asks Flock, Flock answers as PostHog.
 */
function conditionsDecision(context: FlagContext, pass: Pass): Decision | undefined {
  const { flag } = context;
  // The floor: a flag whose every condition was skipped for want of its group reports `no_group_type`.
  let best: RankedReason = { reason: 'no_group_type', conditionIndex: null };
  let skippedGroupCondition = false;
  let passedOver = false;
  const unresolved = new Set<UnresolvedCause>();
  for (const [index, condition] of conditionsOf(flag).entries()) {
    const target = targetFor(context, condition.aggregation_group_type_index);
    if (target.kind !== 'person' && target.kind !== 'group') {
      // posthog-node can't bucket these and asks the server; the server skips the condition.
      if (pass === 'sdk' && target.kind !== 'missing_group') return undefined;
      const skipped = target.kind === 'missing_device' ? 'out_of_rollout_bound' : 'no_group_type';
      skippedGroupCondition ||= skipped === 'no_group_type';
      best = higherReason(best, { reason: skipped, conditionIndex: index });
      continue;
    }
    const outcome = matchCondition(condition, target, context);
    const decided = pass === 'sdk' ? outcome.sdk : outcome.reason;
    if (decided === 'requires_server') return undefined;
    if (decided === 'inconclusive') {
      passedOver = true;
      continue;
    }
    if (outcome.unresolved && pass === 'server') unresolved.add(outcome.unresolved);
    best = higherReason(best, { reason: decided, conditionIndex: index });
    if (decided === 'condition_match') {
      const variant = matchedVariant(flag, condition.variant, target.identifier);
      return { enabled: true, variant, reason: best, unresolved: [...unresolved] };
    }
    // `early_exit`: once a targeted identifier is rolled out of a condition, later ones can't let it in
    // (unless an earlier condition was passed over: then only the server knows).
    if (flag.filters.early_exit === true && decided === 'out_of_rollout_bound') {
      if (passedOver) return undefined;
      break;
    }
  }
  if (passedOver) return undefined;
  if (best.reason === 'no_condition_match' && skippedGroupCondition) {
    best = { ...best, reason: 'no_condition_match_groups_not_evaluated' };
  }
  return { enabled: false, variant: null, reason: best, unresolved: [...unresolved] };
}

const disabled: Decision = {
  enabled: false,
  variant: null,
  reason: { reason: 'flag_disabled', conditionIndex: null },
};

function decide(flag: FeatureFlag, input: FlagEvaluationInput, shared?: SharedEvaluation): Decision {
  if (!flag.active || flag.deleted) return disabled;
  const context = flagContext(flag, input, shared);
  const preempted = earlyAccessDecision(context) ?? holdoutDecision(context);
  if (preempted) return preempted;
  // posthog-node never evaluates experience-continuity flags itself: their hash key is server-side.
  const sdkDecision = flag.ensure_experience_continuity ? undefined : conditionsDecision(context, 'sdk');
  // The server pass always decides; `disabled` only satisfies the type.
  return sdkDecision ?? conditionsDecision(context, 'server') ?? disabled;
}

function failedResult(flag: FeatureFlag, error: unknown): FlagEvaluationResult {
  // A cohort graph beyond the step budget (`EvaluationBudgetError`, stored before writes were capped)
  // is an evaluation error like any other: this flag alone fails, `errorsWhileComputingFlags` is set.
  const code = error instanceof CohortCycleError ? 'dependency_cycle_cohort' : 'unknown';
  return {
    key: String(flag.key),
    enabled: false,
    variant: null,
    payload: null,
    reason: { code, condition_index: null, description: null },
    failed: true,
  };
}

/**
 * One flag for one person (`posthog/models/feature_flag/flag_matching.py` `get_match`), with PostHog's value, variant, payload and reason.
 * Never throws: a definition that can't be evaluated gives a failed, disabled result.
 */
export function evaluateFlag(
  flag: FeatureFlag,
  input: FlagEvaluationInput,
  shared?: SharedEvaluation,
): FlagEvaluationResult {
  try {
    return toResult(flag, decide(flag, input, shared));
  } catch (error) {
    return failedResult(flag, error);
  }
}

/**
 * Every live flag of a project for one person, as `/flags` and `/decide` return them: deleted and
 * inactive flags are left out, and one failing flag marks the response without hiding the others.
 */
export function evaluateFlags(flags: readonly FeatureFlag[], input: FlagEvaluationInput): FlagsEvaluation {
  // One clock, one copy of the person's properties and one memory of matched cohorts for every flag.
  const person = { ...input, now: input.now ?? new Date() };
  const shared = sharedEvaluation(person);
  const results = flags
    .filter((flag) => flag.active && !flag.deleted)
    .map((flag) => evaluateFlag(flag, person, shared));
  return {
    // fromEntries defines own properties, so even a flag keyed `__proto__` stays an ordinary entry.
    flags: Object.fromEntries(results.map((result) => [result.key, result])),
    errorsWhileComputingFlags: results.some((result) => result.failed),
  };
}
