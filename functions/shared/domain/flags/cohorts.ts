import { exactMatchText } from './exact-match';
import { matchProperty } from './match-property';
import { moreNotable, requiresServer, withCause } from './property-match';
import type { PropertyMatch } from './property-match';
import type { PropertyBag, PropertyFilter, PropertyGroup, UnresolvedCause } from './types';

/**
 * Cohort filters (`{type: "cohort", value: <id>, operator: "in" | "not_in"}`), matched against the
 * cohort's own property groups as posthog-node's `matchCohort` / `matchPropertyGroup` do: AND/OR
 * groups, nested, with `negation` on leaves. Membership of a cohort we have no definition for (static,
 * behavioural, deleted) can't be read from properties: it counts as "not a member" and is reported.
 */

export interface CohortContext {
  readonly cohorts: Readonly<Record<string, PropertyGroup>>;
  /** Cohorts are person-level, even inside a group flag. */
  readonly personProperties: PropertyBag;
  readonly now: Date;
  /**
   * Membership of a cohort known only by its stored members (a static cohort, or a behavioural one
   * inside a cohort being calculated), when the caller read it; undefined: unknown here.
   */
  readonly membership?: (cohortId: string) => boolean | undefined;
  /** A behavioural leaf's answer, when the caller counted the person's events (cohort calculation). */
  readonly behavioral?: (filter: PropertyFilter) => boolean | undefined;
}

/** A cohort that contains itself, directly or not: PostHog fails the flag rather than loop. */
export class CohortCycleError extends Error {
  constructor(readonly cohortId: string) {
    super(`cohort ${cohortId} depends on itself`);
    this.name = 'CohortCycleError';
  }
}

function isGroup(value: PropertyGroup | PropertyFilter): value is PropertyGroup {
  return typeof value === 'object' && value !== null && 'values' in value;
}

function matchLeaf(
  filter: PropertyFilter,
  context: CohortContext,
  visiting: ReadonlySet<string>,
): PropertyMatch {
  if (filter.type === 'cohort') return matchCohort(filter, context, visiting);
  if (filter.type === 'flag') return { matches: false, unresolved: 'flag_dependency' };
  // Behavioural leaves ("performed event") need events, not properties.
  if (filter.type === 'behavioral') {
    const known = context.behavioral?.(filter);
    return known === undefined
      ? { matches: false, unresolved: 'cohort_not_evaluable' }
      : withCause(known, undefined);
  }
  return matchProperty(filter, context.personProperties, context.now);
}

/**
 * The server's answer reads every value. posthog-node's answer stops at the first value that decides
 * the group (a false in AND, a true in OR) and skips values it can't decide; it is undecided when
 * only skipped values could have decided, and it gives up at once on a value that needs the server.
 */
export function matchPropertyGroup(
  group: PropertyGroup | undefined,
  context: CohortContext,
  visiting: ReadonlySet<string> = new Set(),
): PropertyMatch {
  // PostHog's canonical empty group is `{}`: everyone.
  if (!group || Object.keys(group).length === 0) return withCause(true, undefined);
  const type = group.type === 'property' ? 'AND' : group.type;
  if (type !== 'AND' && type !== 'OR') return { matches: false, unresolved: 'cohort_not_evaluable' };
  const isAnd = type === 'AND';
  let serverAnswer = isAnd;
  let sdkAnswer: boolean | undefined;
  let unresolved: UnresolvedCause | undefined;
  for (const value of group.values ?? []) {
    const result = isGroup(value)
      ? matchPropertyGroup(value, context, visiting)
      : matchLeaf(value, context, visiting);
    const holds = !isGroup(value) && value.negation ? !result.matches : result.matches;
    serverAnswer = isAnd ? serverAnswer && holds : serverAnswer || holds;
    if (sdkAnswer !== undefined || requiresServer(unresolved)) continue;
    if (result.unresolved)
      unresolved = requiresServer(result.unresolved)
        ? result.unresolved
        : moreNotable(unresolved, result.unresolved);
    else if (holds !== isAnd) sdkAnswer = holds;
  }
  if (sdkAnswer !== undefined && !requiresServer(unresolved)) return withCause(sdkAnswer, undefined);
  return withCause(serverAnswer, unresolved);
}

export function matchCohort(
  filter: PropertyFilter,
  context: CohortContext,
  visiting: ReadonlySet<string> = new Set(),
): PropertyMatch {
  const cohortId = exactMatchText(filter.value);
  if (visiting.has(cohortId)) throw new CohortCycleError(cohortId);
  const definition = Object.hasOwn(context.cohorts, cohortId) ? context.cohorts[cohortId] : undefined;
  const member = definition ? undefined : context.membership?.(cohortId);
  const membership: PropertyMatch = definition
    ? matchPropertyGroup(definition, context, new Set([...visiting, cohortId]))
    : member !== undefined
      ? withCause(member, undefined)
      : { matches: false, unresolved: 'cohort_not_evaluable' };
  const matches = filter.operator === 'not_in' ? !membership.matches : membership.matches;
  return withCause(matches, membership.unresolved);
}
