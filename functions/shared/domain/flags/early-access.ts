import { matchCondition } from './conditions';
import { own } from './context';
import type { FlagContext } from './context';
import type { Decision } from './decision';
import { personIdentifier } from './targets';

/**
 * Early-access features let a person opt in or out themselves. When the person has an enrollment
 * property, it decides the flag outright (`super_condition_value`, reported as condition 0); when
 * they don't, the release conditions decide. Enrollment is always about the person, even on a group
 * flag.
 */
const superConditionReason = { reason: 'super_condition_value', conditionIndex: 0 } as const;

/** Current form: `feature_enrollment: true` and the property `$feature_enrollment/<flag key>`. */
function enrollmentProperty(context: FlagContext): Decision | undefined {
  const value = own(context.personProperties, `$feature_enrollment/${context.flag.key}`);
  if (value === undefined) return undefined;
  return { enabled: value === true || value === 'true', variant: null, reason: superConditionReason };
}

/** Legacy form: the first `super_groups` condition, once any of its properties is set on the person. */
function superGroup(context: FlagContext): Decision | undefined {
  const condition = context.flag.filters.super_groups?.[0];
  const filters = condition?.properties ?? [];
  if (!condition || filters.length === 0) return undefined;
  if (!filters.some((filter) => own(context.personProperties, filter.key) !== undefined)) return undefined;
  const target = {
    identifier: personIdentifier(context, { continuity: true }),
    properties: context.personProperties,
  };
  const outcome = matchCondition(condition, target, context);
  return {
    enabled: outcome.reason === 'condition_match',
    variant: null,
    reason: superConditionReason,
    unresolved: outcome.unresolved ? [outcome.unresolved] : [],
  };
}

export function earlyAccessDecision(context: FlagContext): Decision | undefined {
  return context.flag.filters.feature_enrollment === true ? enrollmentProperty(context) : superGroup(context);
}
