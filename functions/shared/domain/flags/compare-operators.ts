import { parseDateFilter, parseDateValue } from './dates';
import type { PropertyMatch } from './property-match';
import type { DateOperator, SemverOperator } from './types';
import { remembered } from './value-texts';
import type { ValueTexts } from './value-texts';
import { caretRange, compareVersions, isWithin, parseVersion, tildeRange, wildcardRange } from './semver';
import type { Version, VersionRange, VersionReading } from './semver';

type Order = 'gt' | 'gte' | 'lt' | 'lte';

function ordered<T>(left: T, right: T, order: Order): boolean {
  if (order === 'gt') return left > right;
  if (order === 'gte') return left >= right;
  if (order === 'lt') return left < right;
  return left <= right;
}

/**
 * `gt`/`gte`/`lt`/`lte`: numerically when both sides read as numbers (parseFloat, so `"10px"` is 10),
 * otherwise as text — posthog-node's rule, so `"100" lt "30"` holds while `100 lt "30"` does not.
 */
export function matchOrder(order: Order, filterValue: unknown, actual: unknown): PropertyMatch {
  const filterNumber = typeof filterValue === 'number' ? filterValue : parseFloat(String(filterValue));
  const actualNumber = typeof actual === 'number' ? actual : parseFloat(String(actual));
  if (Number.isFinite(filterNumber) && Number.isFinite(actualNumber)) {
    return { matches: ordered(actualNumber, filterNumber, order) };
  }
  return { matches: ordered(String(actual), String(filterValue), order) };
}

/** An unparsable date on either side matches nothing, as on the server. */
export function matchDate(
  operator: DateOperator,
  filterValue: unknown,
  actual: unknown,
  now: Date,
  texts?: ValueTexts,
): PropertyMatch {
  const filterDate = parseDateFilter(filterValue, now);
  const actualDate = remembered(texts?.dates, actual, parseDateValue);
  // `is_date_exact` is a flags-service operator posthog-node doesn't have.
  const sdkOperator = operator !== 'is_date_exact';
  if (!filterDate || !actualDate) return { matches: false, unresolved: 'unparsable_value' };
  const difference = actualDate.getTime() - filterDate.getTime();
  const matches =
    operator === 'is_date_before'
      ? difference < 0
      : operator === 'is_date_after'
        ? difference > 0
        : difference === 0;
  return sdkOperator ? { matches } : { matches, unresolved: 'operator_not_in_sdk' };
}

function rangeFor(operator: SemverOperator, filterValue: string, reading: VersionReading) {
  if (operator === 'semver_tilde') return tildeRange(filterValue, reading);
  if (operator === 'semver_caret') return caretRange(filterValue, reading);
  return wildcardRange(filterValue, reading);
}

function compareWith(operator: SemverOperator, actual: Version, filter: Version): boolean {
  const comparison = compareVersions(actual, filter);
  switch (operator) {
    case 'semver_eq':
      return comparison === 0;
    case 'semver_neq':
      return comparison !== 0;
    case 'semver_gt':
      return comparison > 0;
    case 'semver_gte':
      return comparison >= 0;
    case 'semver_lt':
      return comparison < 0;
    default:
      return comparison <= 0;
  }
}

function semverMatches(
  operator: SemverOperator,
  filterValue: string,
  actualValue: string,
  reading: VersionReading,
) {
  const actual = parseVersion(actualValue, reading);
  if (operator === 'semver_tilde' || operator === 'semver_caret' || operator === 'semver_wildcard') {
    const range: VersionRange | 'any' | null = rangeFor(operator, filterValue, reading);
    if (!range || !actual) return null;
    return range === 'any' || isWithin(actual, range);
  }
  const filter = parseVersion(filterValue, reading);
  if (!filter || !actual) return null;
  return compareWith(operator, actual, filter);
}

/**
 * posthog-node reads versions strictly and defers anything else (`3.08`, `1.*.*`) to the server,
 * whose reading is more lenient; a version neither reads matches nothing.
 */
export function matchSemver(operator: SemverOperator, filterValue: unknown, actual: unknown): PropertyMatch {
  const strict = semverMatches(operator, String(filterValue), String(actual), 'strict');
  if (strict !== null) return { matches: strict };
  const lenient = semverMatches(operator, String(filterValue), String(actual), 'lenient');
  return { matches: lenient ?? false, unresolved: 'unparsable_value' };
}
