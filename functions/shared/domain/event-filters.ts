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

/**
 * Bounds on what one request may ask the filters to do (an attacker controls every byte): each
 * filter compares with every event a listing examines, so their number multiplies the work.
 */
export const propertyFilterLimits = { filters: 50, keyLength: 400, valueBytes: 10_000 } as const;

const filterSchema = z.object({
  key: z.string().min(1),
  value: z.unknown().optional(),
  operator: z.enum(eventFilterOperators).default('exact'),
  type: z.enum(['event', 'person']).default('event'),
});

export type EventPropertyFilter = z.infer<typeof filterSchema>;

/**
 * Thrown for a `properties` parameter that is not a list of filters we understand, passes a bound, or
 * leaves out the value its operator compares with.
 */
export class UnparsableFiltersError extends Error {
  constructor(message = 'Properties are unparsable!') {
    super(message);
  }
}

function checkBounds(filters: readonly EventPropertyFilter[]): void {
  const { filters: most, keyLength, valueBytes } = propertyFilterLimits;
  if (filters.length > most)
    throw new UnparsableFiltersError(`At most ${most} property filters are allowed.`);
  for (const filter of filters) {
    // Every operator but the two on presence compares with the value: without one there is nothing to
    // compare (`icontains` of no value would search for the text of `undefined`).
    if (filter.value === undefined && filter.operator !== 'is_set' && filter.operator !== 'is_not_set')
      throw new UnparsableFiltersError(`A property filter with operator ${filter.operator} needs a value.`);
    if (filter.key.length > keyLength)
      throw new UnparsableFiltersError(`A property filter key is at most ${keyLength} characters.`);
    if (Buffer.byteLength(JSON.stringify(filter.value ?? null)) > valueBytes)
      throw new UnparsableFiltersError(`A property filter value is at most ${valueBytes} bytes of JSON.`);
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
  checkBounds(result.data);
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

/**
 * The texts a filter compares with, computed once per filter (a request's filters meet every event
 * it examines): its value's text, each candidate's for `exact`, the lowercase for `icontains`.
 */
interface FilterTexts {
  readonly text: string;
  readonly candidates: readonly string[];
  lower?: string;
}

const filterTexts = new WeakMap<EventPropertyFilter, FilterTexts>();

function textsOf(filter: EventPropertyFilter): FilterTexts {
  let texts = filterTexts.get(filter);
  if (!texts) {
    const text = asText(filter.value);
    const candidates = Array.isArray(filter.value) ? filter.value.map(asText) : [text];
    filterTexts.set(filter, (texts = { text, candidates }));
  }
  return texts;
}

function lowerOf(filter: EventPropertyFilter): string {
  const texts = textsOf(filter);
  return (texts.lower ??= texts.text.toLowerCase());
}

/**
 * The text of each property of one event (and its lowercase), computed at most once however many
 * filters or candidates compare with it: a 100 KB object property against a list of 2,000 exact
 * candidates would otherwise be turned into JSON 2,000 times for one event.
 */
class PropertyTexts {
  private readonly texts = new Map<string, string>();
  private readonly lowered = new Map<string, string>();

  constructor(readonly properties: Readonly<Record<string, unknown>>) {}

  text(key: string): string {
    let text = this.texts.get(key);
    if (text === undefined) this.texts.set(key, (text = asText(this.properties[key])));
    return text;
  }

  lower(key: string): string {
    let lower = this.lowered.get(key);
    if (lower === undefined) this.lowered.set(key, (lower = this.text(key).toLowerCase()));
    return lower;
  }
}

function compare(actual: unknown, expected: unknown, test: (a: number, b: number) => boolean): boolean {
  const a = asNumber(actual);
  const b = asNumber(expected);
  return a !== undefined && b !== undefined && test(a, b);
}

function matchesTexts(filter: EventPropertyFilter, properties: PropertyTexts): boolean {
  const { key } = filter;
  const present =
    Object.prototype.hasOwnProperty.call(properties.properties, key) &&
    properties.properties[key] !== undefined;
  const actual = properties.properties[key];
  switch (filter.operator) {
    case 'is_set':
      return present;
    case 'is_not_set':
      return !present;
    case 'exact':
      return present && textsOf(filter).candidates.includes(properties.text(key));
    case 'is_not':
      return !present || !textsOf(filter).candidates.includes(properties.text(key));
    case 'icontains':
      return present && properties.lower(key).includes(lowerOf(filter));
    case 'not_icontains':
      return !present || !properties.lower(key).includes(lowerOf(filter));
    case 'regex': {
      const pattern = compileRegex(textsOf(filter).text);
      return present && pattern !== null && pattern.test(properties.text(key));
    }
    case 'not_regex': {
      const pattern = compileRegex(textsOf(filter).text);
      return pattern !== null && (!present || !pattern.test(properties.text(key)));
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

export function matchesFilter(
  filter: EventPropertyFilter,
  properties: Readonly<Record<string, unknown>>,
): boolean {
  return matchesTexts(filter, new PropertyTexts(properties));
}

/** Every filter must match (AND), event filters on the event's properties, person filters on its person's. */
export function matchesAllFilters(
  filters: readonly EventPropertyFilter[],
  eventProperties: Readonly<Record<string, unknown>>,
  personProperties: Readonly<Record<string, unknown>> = {},
): boolean {
  const event = new PropertyTexts(eventProperties);
  const person = new PropertyTexts(personProperties);
  return filters.every((filter) => matchesTexts(filter, filter.type === 'person' ? person : event));
}
