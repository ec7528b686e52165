import type { StepBudget } from './budget';
import { exactMatchText } from './exact-match';
import { matchProperty } from './match-property';
import { moreNotable, requiresServer, withCause } from './property-match';
import type { PropertyMatch } from './property-match';
import type { ValueTexts } from './value-texts';
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
  /**
   * Each cohort's membership once matched, for this person in this evaluation: a cohort named many
   * times (directly or through others) is matched once, so nesting adds rather than multiplies.
   */
  readonly memo?: Map<string, PropertyMatch>;
  /** Groups and filters this evaluation may still visit (a remembered cohort costs one). */
  readonly budget?: StepBudget;
  /** What the filters derived from the values they matched (see value-texts.ts). */
  readonly texts?: ValueTexts;
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

function matchLeaf(filter: PropertyFilter, context: CohortContext, visiting: Set<string>): PropertyMatch {
  if (filter.type === 'cohort') return matchCohort(filter, context, visiting);
  if (filter.type === 'flag') return { matches: false, unresolved: 'flag_dependency' };
  // Behavioural leaves ("performed event") need events, not properties.
  if (filter.type === 'behavioral') {
    const known = context.behavioral?.(filter);
    return known === undefined
      ? { matches: false, unresolved: 'cohort_not_evaluable' }
      : withCause(known, undefined);
  }
  return matchProperty(filter, context.personProperties, context.now, context.texts);
}

/**
 * The server's answer reads every value. posthog-node's answer stops at the first value that decides
 * the group (a false in AND, a true in OR) and skips values it can't decide; it is undecided when
 * only skipped values could have decided, and it gives up at once on a value that needs the server.
 * The values after that point cannot change the result (posthog-node's decision wins, or the
 * server's answer is already false in AND, true in OR, with its cause fixed), so they are not
 * matched: a person who fails the second of 75 filters costs two.
 */
export function matchPropertyGroup(
  group: PropertyGroup | undefined,
  context: CohortContext,
  visiting: Set<string> = new Set(),
): PropertyMatch {
  context.budget?.spend();
  // PostHog's canonical empty group is `{}`: everyone.
  if (!group || Object.keys(group).length === 0) return withCause(true, undefined);
  const type = group.type === 'property' ? 'AND' : group.type;
  if (type !== 'AND' && type !== 'OR') return { matches: false, unresolved: 'cohort_not_evaluable' };
  const isAnd = type === 'AND';
  let serverAnswer = isAnd;
  let sdkAnswer: boolean | undefined;
  let unresolved: UnresolvedCause | undefined;
  for (const value of group.values ?? []) {
    let result: PropertyMatch;
    if (isGroup(value)) result = matchPropertyGroup(value, context, visiting);
    else {
      context.budget?.spend();
      result = matchLeaf(value, context, visiting);
    }
    const holds = !isGroup(value) && value.negation ? !result.matches : result.matches;
    serverAnswer = isAnd ? serverAnswer && holds : serverAnswer || holds;
    if (!requiresServer(unresolved)) {
      if (result.unresolved)
        unresolved = requiresServer(result.unresolved)
          ? result.unresolved
          : moreNotable(unresolved, result.unresolved);
      else if (holds !== isAnd) sdkAnswer = holds;
    }
    if (sdkAnswer !== undefined || (requiresServer(unresolved) && serverAnswer !== isAnd)) break;
  }
  if (sdkAnswer !== undefined && !requiresServer(unresolved)) return withCause(sdkAnswer, undefined);
  return withCause(serverAnswer, unresolved);
}

function membershipOf(cohortId: string, context: CohortContext, visiting: Set<string>): PropertyMatch {
  const definition = Object.hasOwn(context.cohorts, cohortId) ? context.cohorts[cohortId] : undefined;
  if (definition) {
    // One set along the path, not a copy per level: a long chain of cohorts stays linear.
    visiting.add(cohortId);
    try {
      return matchPropertyGroup(definition, context, visiting);
    } finally {
      visiting.delete(cohortId);
    }
  }
  const member = context.membership?.(cohortId);
  return member !== undefined
    ? withCause(member, undefined)
    : { matches: false, unresolved: 'cohort_not_evaluable' };
}

export function matchCohort(
  filter: PropertyFilter,
  context: CohortContext,
  visiting: Set<string> = new Set(),
): PropertyMatch {
  const cohortId = exactMatchText(filter.value);
  if (visiting.has(cohortId)) throw new CohortCycleError(cohortId);
  const membership = context.memo?.get(cohortId) ?? membershipOf(cohortId, context, visiting);
  context.memo?.set(cohortId, membership);
  const matches = filter.operator === 'not_in' ? !membership.matches : membership.matches;
  return withCause(matches, membership.unresolved);
}
