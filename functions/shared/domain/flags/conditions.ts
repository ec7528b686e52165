import { matchCohort } from './cohorts';
import type { FlagContext } from './context';
import { flagHash } from './hash';
import { matchProperty } from './match-property';
import { moreNotable, requiresServer } from './property-match';
import type { PropertyMatch } from './property-match';
import type { FeatureFlag, FlagCondition, PropertyBag, PropertyFilter, UnresolvedCause } from './types';

/** A condition as the server decides it. */
export type ConditionReason = 'condition_match' | 'no_condition_match' | 'out_of_rollout_bound';

/**
 * A condition as posthog-node decides it: or `inconclusive` (it skips the condition and tries the
 * next), or `requires_server` (it stops and asks the server for the whole flag).
 */
export type SdkConditionOutcome = ConditionReason | 'inconclusive' | 'requires_server';

export interface ConditionOutcome {
  readonly reason: ConditionReason;
  readonly sdk: SdkConditionOutcome;
  readonly unresolved?: UnresolvedCause;
}

/**
 * The flag's release conditions. A flag stored before conditions existed (no `groups` key) has one:
 * its `properties` at the flag's own `rollout_percentage`.
 */
export function conditionsOf(flag: FeatureFlag): readonly FlagCondition[] {
  const { filters } = flag;
  if (!('groups' in filters)) {
    return [{ properties: filters.properties ?? [], rollout_percentage: flag.rollout_percentage ?? null }];
  }
  const groups: unknown = filters.groups ?? [];
  if (!Array.isArray(groups)) throw new TypeError(`flag ${flag.key}: filters.groups is not a list`);
  return groups as readonly FlagCondition[];
}

function matchFilter(filter: PropertyFilter, properties: PropertyBag, context: FlagContext): PropertyMatch {
  if (filter.type === 'cohort') return matchCohort(filter, context.cohorts);
  // Flag dependencies need the other flags' values, which a single evaluation doesn't have.
  if (filter.type === 'flag') return { matches: false, unresolved: 'flag_dependency' };
  return matchProperty(filter, properties, context.now, context.texts);
}

/**
 * Out of rollout when `hash > rollout / 100`, so a hash exactly on the boundary is in. Null means 100 %.
 * `hashes`: the flag's hashes by identifier, kept while its conditions are matched. The identifier is
 * the request's (a group key or `$device_id` of any length) and is the same for every condition of
 * the flag: without memory, each condition hashed it again.
 */
export function isInRollout(
  flag: FeatureFlag,
  identifier: string,
  rollout: unknown,
  hashes?: Map<string, number>,
): boolean {
  if (rollout === null || rollout === undefined) return true;
  if (typeof rollout !== 'number') {
    throw new TypeError(`flag ${flag.key}: rollout_percentage is not a number`);
  }
  // Every hash is at most 1, so a full rollout needs no hash.
  if (rollout >= 100) return true;
  let hash = hashes?.get(identifier);
  if (hash === undefined) {
    hash = flagHash(flag.key, identifier);
    hashes?.set(identifier, hash);
  }
  return hash <= rollout / 100;
}

interface FiltersOutcome {
  /** The server's answer: every filter holds. */
  readonly allHold: boolean;
  /** posthog-node's answer when it isn't simply the server's (undefined: it agrees). */
  readonly sdk?: 'no_condition_match' | 'inconclusive' | 'requires_server';
  readonly unresolved?: UnresolvedCause;
}

/**
 * posthog-node reads the filters in order: a false it can decide rules the condition out at once; a
 * filter it can't decide is passed over, and when the first of those needs the server (a cohort it
 * lacks), the whole flag goes to the server.
 */
function matchFilters(
  filters: readonly PropertyFilter[],
  properties: PropertyBag,
  context: FlagContext,
): FiltersOutcome {
  let allHold = true;
  let firstUnresolved: UnresolvedCause | undefined;
  let unresolved: UnresolvedCause | undefined;
  for (const filter of filters) {
    const result = matchFilter(filter, properties, context);
    // A false that posthog-node and the server both see ends the condition for both.
    if (!result.matches && !result.unresolved)
      return { allHold: false, sdk: 'no_condition_match', unresolved };
    allHold &&= result.matches;
    firstUnresolved ??= result.unresolved;
    unresolved = moreNotable(unresolved, result.unresolved);
  }
  if (firstUnresolved === undefined) return { allHold, unresolved };
  return { allHold, sdk: requiresServer(firstUnresolved) ? 'requires_server' : 'inconclusive', unresolved };
}

/** All of a condition's filters must hold (AND), then its rollout must include the identifier. */
export function matchCondition(
  condition: FlagCondition,
  target: { readonly identifier: string; readonly properties: PropertyBag },
  context: FlagContext,
): ConditionOutcome {
  const filters: unknown = condition.properties ?? [];
  if (!Array.isArray(filters)) {
    throw new TypeError(`flag ${context.flag.key}: condition properties is not a list`);
  }
  const { allHold, sdk, unresolved } = matchFilters(
    filters as readonly PropertyFilter[],
    target.properties,
    context,
  );
  if (!allHold) return { reason: 'no_condition_match', sdk: sdk ?? 'no_condition_match', unresolved };
  const inRollout = isInRollout(
    context.flag,
    target.identifier,
    condition.rollout_percentage,
    context.rolloutHashes,
  );
  const reason: ConditionReason = inRollout ? 'condition_match' : 'out_of_rollout_bound';
  return { reason, sdk: sdk ?? reason, unresolved };
}
