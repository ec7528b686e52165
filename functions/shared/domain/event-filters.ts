import type { RE2JS } from 're2js';
import * as z from 'zod';
import { compileRegex } from './regex';

/**
 * The `properties` filter of the events API (`posthog/api/event.py`): PostHog's JSON list of property
 * filters, matched the way its event queries match them: on the property's value as text (a
 * number 5 equals "5"), case-sensitively for `exact`, case-insensitively for `icontains`; negated
 * operators also match events that lack the property.
 */

export const eventFilterOperators = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_set',
  'is_not_set',
] as const;

const filterSchema = z.object({
  key: z.string().min(1),
  value: z.unknown().optional(),
  operator: z.enum(eventFilterOperators).default('exact'),
  type: z.enum(['event', 'person']).default('event'),
});

export type EventPropertyFilter = z.infer<typeof filterSchema>;

/** Thrown for a `properties` parameter that is not a list of filters we understand. */
export class UnparsableFiltersError extends Error {
  constructor() {
    super('Properties are unparsable!');
  }
}

/** `[{key, value, operator?, type?}]` as JSON text; an object of `key: value` pairs means exact matches. */
export function parseEventFilters(raw: string | undefined): EventPropertyFilter[] {
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new UnparsableFiltersError();
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    parsed = Object.entries(parsed as Record<string, unknown>).map(([key, value]) => ({ key, value }));
  }
  const result = z.array(filterSchema).safeParse(parsed);
  if (!result.success) throw new UnparsableFiltersError();
  return result.data;
}

/** A property's value as the events query compares it: JSON text without the quotes of strings. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}

function safeRegex(pattern: unknown): RE2JS | undefined {
  return compileRegex(asText(pattern)) ?? undefined;
}

function exactMatch(actual: unknown, expected: unknown): boolean {
  const candidates = Array.isArray(expected) ? expected : [expected];
  return candidates.some((candidate) => asText(candidate) === asText(actual));
}

function compare(actual: unknown, expected: unknown, test: (a: number, b: number) => boolean): boolean {
  const a = asNumber(actual);
  const b = asNumber(expected);
  return a !== undefined && b !== undefined && test(a, b);
}

export function matchesFilter(
  filter: EventPropertyFilter,
  properties: Readonly<Record<string, unknown>>,
): boolean {
  const present =
    Object.prototype.hasOwnProperty.call(properties, filter.key) && properties[filter.key] !== undefined;
  const actual = properties[filter.key];
  switch (filter.operator) {
    case 'is_set':
      return present;
    case 'is_not_set':
      return !present;
    case 'exact':
      return present && exactMatch(actual, filter.value);
    case 'is_not':
      return !present || !exactMatch(actual, filter.value);
    case 'icontains':
      return present && asText(actual).toLowerCase().includes(asText(filter.value).toLowerCase());
    case 'not_icontains':
      return !present || !asText(actual).toLowerCase().includes(asText(filter.value).toLowerCase());
    case 'regex': {
      const pattern = safeRegex(filter.value);
      return present && pattern !== undefined && pattern.test(asText(actual));
    }
    case 'not_regex': {
      const pattern = safeRegex(filter.value);
      return pattern !== undefined && (!present || !pattern.test(asText(actual)));
    }
    case 'gt':
      return present && compare(actual, filter.value, (a, b) => a > b);
    case 'gte':
      return present && compare(actual, filter.value, (a, b) => a >= b);
    case 'lt':
      return present && compare(actual, filter.value, (a, b) => a < b);
    case 'lte':
      return present && compare(actual, filter.value, (a, b) => a <= b);
  }
}

/** Every filter must match (AND), event filters on the event's properties, person filters on its person's. */
export function matchesAllFilters(
  filters: readonly EventPropertyFilter[],
  eventProperties: Readonly<Record<string, unknown>>,
  personProperties: Readonly<Record<string, unknown>> = {},
): boolean {
  return filters.every((filter) =>
    matchesFilter(filter, filter.type === 'person' ? personProperties : eventProperties),
  );
}
