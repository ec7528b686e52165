import type { FlagContext } from './context';
import type { Decision } from './decision';
import { holdoutHash } from './hash';
import { groupTarget, personIdentifier } from './targets';
import { hashedVariant } from './variants';

/**
 * Experiment holdouts: a share of identifiers, hashed without the flag key so the same people are
 * held out of every flag of the experiment, get the holdout's own variant before any condition is
 * looked at. Group flags hold out by group key; a group flag without its group is never held out.
 */
const holdoutReason = { reason: 'holdout_condition_value', conditionIndex: null } as const;

function holdoutIdentifier(context: FlagContext): string | undefined {
  const aggregation = context.flag.filters.aggregation_group_type_index;
  if (typeof aggregation !== 'number') return personIdentifier(context, { continuity: false });
  const target = groupTarget(context, aggregation);
  return target.kind === 'group' ? target.identifier : undefined;
}

/** Current form: `holdout: {id, exclusion_percentage}` → variant `holdout-<id>`. */
function currentHoldout(context: FlagContext, identifier: string): Decision | undefined {
  const holdout = context.flag.filters.holdout;
  if (holdout?.id === undefined || holdout.id === null) return undefined;
  const percentage = Number(holdout.exclusion_percentage);
  // A percentage that isn't a number would hold out everyone; PostHog rejects it, so: no holdout.
  if (holdout.exclusion_percentage === null || !Number.isFinite(percentage)) return undefined;
  const clamped = Math.min(Math.max(percentage, 0), 100);
  if (clamped < 100 && holdoutHash(identifier) > clamped / 100) return undefined;
  return { enabled: true, variant: `holdout-${holdout.id}`, reason: holdoutReason };
}

/** Earlier form: the first `holdout_groups` condition, rollout only, with its variant or a hashed one. */
function legacyHoldout(context: FlagContext, identifier: string): Decision | undefined {
  const condition = context.flag.filters.holdout_groups?.[0];
  if (!condition || (condition.properties ?? []).length > 0) return undefined;
  const rollout = condition.rollout_percentage;
  if (typeof rollout === 'number' && holdoutHash(identifier) > rollout / 100) return undefined;
  const variant = condition.variant ?? hashedVariant(context.flag, identifier) ?? 'holdout';
  return { enabled: true, variant, reason: holdoutReason };
}

export function holdoutDecision(context: FlagContext): Decision | undefined {
  const { holdout, holdout_groups } = context.flag.filters;
  if (!holdout && !holdout_groups?.length) return undefined;
  const identifier = holdoutIdentifier(context);
  if (identifier === undefined) return undefined;
  return holdout ? currentHoldout(context, identifier) : legacyHoldout(context, identifier);
}
