import * as z from 'zod';
import { eventFilterOperators, propertyFilterLimits } from './event-filters';
import { matchProperty } from './flags/match-property';
import type { PropertyFilter } from './flags/types';
import { valueTexts } from './flags/value-texts';
import type { Person } from './persons';

/**
 * Which persons a persons list keeps (`search`, `properties`): person property filters are matched
 * with the matcher feature flags and cohorts use (flags/match-property.ts), so a person listed under
 * a filter is exactly one a flag or cohort with that filter would hold.
 */

/**
 * The operators of person property filters: every operator the flags matcher (flags/match-property.ts)
 * implements, the events API's own ones included.
 */
export const personFilterOperators = [
  ...eventFilterOperators,
  'starts_with',
  'not_starts_with',
  'ends_with',
  'not_ends_with',
  'icontains_multi',
  'not_icontains_multi',
  'is_date_before',
  'is_date_after',
  'is_date_exact',
  'semver_eq',
  'semver_neq',
  'semver_gt',
  'semver_gte',
  'semver_lt',
  'semver_lte',
  'semver_tilde',
  'semver_caret',
  'semver_wildcard',
] as const;

/** Bounds on what one request may ask the matcher to do (an attacker controls every byte). */
export const personFilterLimits = propertyFilterLimits;

export const personPropertyFilterSchema = z
  .object({
    key: z.string().min(1).max(personFilterLimits.keyLength),
    value: z.unknown().optional(),
    operator: z.enum(personFilterOperators).default('exact'),
    type: z.literal('person').default('person'),
    negation: z.boolean().optional(),
  })
  .refine(
    (filter) => Buffer.byteLength(JSON.stringify(filter.value ?? null)) <= personFilterLimits.valueBytes,
    {
      message: `A filter value is at most ${personFilterLimits.valueBytes} bytes of JSON.`,
    },
  );

export type PersonPropertyFilter = z.infer<typeof personPropertyFilterSchema>;

export const personFiltersSchema = z.array(personPropertyFilterSchema).max(personFilterLimits.filters);

export interface PersonQuery {
  readonly search?: string;
  readonly properties: readonly PersonPropertyFilter[];
}

/** A person matches every filter (missing properties: the server's rule, negative operators hold). */
export function matchesPersonFilters(
  properties: Readonly<Record<string, unknown>>,
  filters: readonly PersonPropertyFilter[],
  now: Date,
): boolean {
  // One memo per person: every filter naming a property reads its folded text once (a person's
  // property may be 160 KB and the filters 50).
  const texts = valueTexts();
  return filters.every((filter) => {
    const { matches } = matchProperty(filter as PropertyFilter, properties, now, texts);
    return filter.negation ? !matches : matches;
  });
}

/** PostHog's person search: the email or name property, or a distinct id, contains the text (any case). */
export function matchesPersonSearch(person: Person, search: string): boolean {
  const needle = search.toLowerCase();
  const contains = (value: unknown): boolean =>
    typeof value === 'string' && value.toLowerCase().includes(needle);
  return (
    contains(person.properties.email) || contains(person.properties.name) || person.distinctIds.some(contains)
  );
}

export function matchesPersonQuery(person: Person, query: PersonQuery, now: Date): boolean {
  if (query.search && !matchesPersonSearch(person, query.search)) return false;
  return matchesPersonFilters(person.properties, query.properties, now);
}

export const isFiltered = (query: PersonQuery): boolean =>
  Boolean(query.search) || query.properties.length > 0;
