import { matchDate, matchOrder, matchSemver } from './compare-operators';
import { isExactMatch, exactMatchText } from './exact-match';
import { matched, notMatched } from './property-match';
import type { PropertyMatch } from './property-match';
import { needlesOf } from './needles';
import { regexFinds } from './regex';
import type { PropertyBag, PropertyFilter, SemverOperator } from './types';
import { remembered } from './value-texts';
import type { ValueTexts } from './value-texts';

export type { PropertyMatch } from './property-match';

/**
 * An absent property: posthog-node can't decide and asks the server, whose rule (the flags service's
 * `match_property` on full properties) is that negative operators match an absent value — a person
 * without an email "is not" any address — and every other operator doesn't. A filter without a value
 * matches nothing there.
 */
const matchingWhenAbsent = new Set([
  'is_not_set',
  'is_not',
  'not_icontains',
  'not_icontains_multi',
  'not_regex',
  'not_starts_with',
  'not_ends_with',
]);

/** The operators that read a null value as the text "null"; every other one fails on null. */
const readingNullAsText = new Set([
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
  'regex',
  'not_regex',
]);

/** The flags service folds ASCII only for substring, prefix and suffix operators. */
function asciiLowercase(value: unknown): string {
  return String(value).replace(/[A-Z]/g, (character) => character.toLowerCase());
}

const answer = (matches: boolean): PropertyMatch => (matches ? matched : notMatched);

const lowerExactText = (value: unknown): string => exactMatchText(value).toLowerCase();

const exactTextOf =
  (texts: ValueTexts | undefined) =>
  (actual: unknown): string =>
    remembered(texts?.exact, actual, lowerExactText);

function containsAny(filterValue: unknown, actual: unknown, texts: ValueTexts | undefined): boolean {
  const haystack = remembered(texts?.exact, actual, lowerExactText);
  if (!Array.isArray(filterValue)) return haystack.includes(lowerExactText(filterValue));
  return needlesOf(filterValue, lowerExactText).foundIn(haystack);
}

/** Substring, prefix and suffix operators, on both texts folded (only these pay for the folding). */
const textTests = new Map<string, (text: string, needle: string) => boolean>([
  ['icontains', (text, needle) => text.includes(needle)],
  ['not_icontains', (text, needle) => !text.includes(needle)],
  ['starts_with', (text, needle) => text.startsWith(needle)],
  ['not_starts_with', (text, needle) => !text.startsWith(needle)],
  ['ends_with', (text, needle) => text.endsWith(needle)],
  ['not_ends_with', (text, needle) => !text.endsWith(needle)],
]);

/**
 * A filter's value ASCII folded, kept while the filter lives (and holds that value): one filter is
 * matched with every person of a persons list or cohort, and its value may be 10 KB.
 */
const foldedValues = new WeakMap<PropertyFilter, { readonly value: unknown; readonly folded: string }>();

function foldedValueOf(filter: PropertyFilter): string {
  const kept = foldedValues.get(filter);
  if (kept && kept.value === filter.value) return kept.folded;
  const folded = asciiLowercase(filter.value);
  foldedValues.set(filter, { value: filter.value, folded });
  return folded;
}

function matchText(
  operator: string,
  filter: PropertyFilter,
  actual: unknown,
  texts: ValueTexts | undefined,
): PropertyMatch | undefined {
  const filterValue: unknown = filter.value;
  const test = textTests.get(operator);
  if (test) return answer(test(remembered(texts?.folded, actual, asciiLowercase), foldedValueOf(filter)));
  switch (operator) {
    // Flags-service operators posthog-node doesn't have.
    case 'icontains_multi':
      return { matches: containsAny(filterValue, actual, texts), unresolved: 'operator_not_in_sdk' };
    case 'not_icontains_multi':
      return { matches: !containsAny(filterValue, actual, texts), unresolved: 'operator_not_in_sdk' };
    default:
      return undefined;
  }
}

function matchValue(
  operator: string,
  filter: PropertyFilter,
  actual: unknown,
  now: Date,
  texts: ValueTexts | undefined,
): PropertyMatch {
  const filterValue: unknown = filter.value;
  const text = matchText(operator, filter, actual, texts);
  if (text) return text;
  switch (operator) {
    case 'exact':
      return answer(isExactMatch(filterValue, actual, exactTextOf(texts)));
    case 'is_not':
      return answer(!isExactMatch(filterValue, actual, exactTextOf(texts)));
    case 'regex':
    case 'not_regex': {
      const found = regexFinds(String(filterValue), remembered(texts?.plain, actual, String));
      if (found === null) return notMatched;
      return answer(operator === 'regex' ? found : !found);
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return matchOrder(operator, filterValue, actual);
    case 'is_date_before':
    case 'is_date_after':
    case 'is_date_exact':
      return matchDate(operator, filterValue, actual, now, texts);
    case 'semver_eq':
    case 'semver_neq':
    case 'semver_gt':
    case 'semver_gte':
    case 'semver_lt':
    case 'semver_lte':
    case 'semver_tilde':
    case 'semver_caret':
    case 'semver_wildcard':
      return matchSemver(operator satisfies SemverOperator, filterValue, actual);
    default:
      return { matches: false, unresolved: 'operator_not_in_sdk' };
  }
}

/**
 * Matches one person or group property filter as posthog-node's `matchFeatureFlagProperty` does
 * wherever it decides, and as PostHog's flags service does where it defers (see `PropertyMatch`).
 * `texts`: what the evaluation already derived from the values it matched (see value-texts.ts).
 */
export function matchProperty(
  filter: PropertyFilter,
  properties: PropertyBag,
  now: Date,
  texts?: ValueTexts,
): PropertyMatch {
  const operator = filter.operator || 'exact';
  const actual = Object.hasOwn(properties, filter.key) ? properties[filter.key] : undefined;
  if (actual === undefined) {
    const hasFilterValue = filter.value !== undefined && filter.value !== null;
    const matches = operator === 'is_not_set' || (hasFilterValue && matchingWhenAbsent.has(operator));
    return { matches, unresolved: 'missing_property' };
  }
  // A property set to null is still set.
  if (operator === 'is_set') return matched;
  if (operator === 'is_not_set') return notMatched;
  if (actual === null && !readingNullAsText.has(operator)) return notMatched;
  return matchValue(operator, filter, actual, now, texts);
}
