import type { UnresolvedCause } from './types';

/**
 * One filter's answer. `unresolved` says posthog-node's local evaluation would not have decided the
 * filter (it raises InconclusiveMatchError and asks the server); `matches` is then the server's answer.
 */
export interface PropertyMatch {
  readonly matches: boolean;
  readonly unresolved?: UnresolvedCause;
}

export const matched: PropertyMatch = { matches: true };
export const notMatched: PropertyMatch = { matches: false };

/**
 * Causes after which posthog-node stops evaluating the flag and asks the server outright
 * (RequiresServerEvaluation), rather than skipping the condition and trying the next one.
 */
export function requiresServer(cause: UnresolvedCause | undefined): boolean {
  return cause === 'cohort_not_evaluable' || cause === 'flag_dependency';
}

// When several filters were decided by the server's rule, report the least expected cause.
const causePrecedence: readonly UnresolvedCause[] = [
  'cohort_not_evaluable',
  'flag_dependency',
  'operator_not_in_sdk',
  'unparsable_value',
  'missing_property',
];

export function moreNotable(
  current: UnresolvedCause | undefined,
  next: UnresolvedCause | undefined,
): UnresolvedCause | undefined {
  if (current === undefined) return next;
  if (next === undefined) return current;
  return causePrecedence.indexOf(next) < causePrecedence.indexOf(current) ? next : current;
}

export function withCause(matches: boolean, unresolved: UnresolvedCause | undefined): PropertyMatch {
  if (unresolved === undefined) return matches ? matched : notMatched;
  return { matches, unresolved };
}
