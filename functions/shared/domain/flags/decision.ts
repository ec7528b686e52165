import { own } from './context';
import { toFlagReason } from './reasons';
import type { RankedReason } from './reasons';
import type { FeatureFlag, FlagEvaluationResult, JsonValue, UnresolvedCause } from './types';

/** A flag's value and why, before its payload is looked up. */
export interface Decision {
  readonly enabled: boolean;
  readonly variant: string | null;
  readonly reason: RankedReason;
  readonly unresolved?: readonly UnresolvedCause[];
}

/** `payloads[variant]`, or `payloads["true"]` for a boolean match; nothing for a disabled flag. */
export function payloadFor(flag: FeatureFlag, enabled: boolean, variant: string | null): JsonValue | null {
  if (!enabled) return null;
  return own(flag.filters.payloads, variant ?? 'true') ?? null;
}

export function toResult(flag: FeatureFlag, decision: Decision): FlagEvaluationResult {
  const { enabled, variant, unresolved } = decision;
  return {
    key: flag.key,
    enabled,
    variant: enabled ? variant : null,
    payload: payloadFor(flag, enabled, variant),
    reason: toFlagReason(decision.reason),
    failed: false,
    ...(unresolved && unresolved.length > 0 ? { unresolved } : {}),
  };
}
