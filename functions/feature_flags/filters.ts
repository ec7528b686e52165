import type * as z from 'zod';
import type { FlagFilters, JsonValue } from '../shared/domain/flags';
import { ValidationError, validationErrorFromZod } from '../shared/http/errors';
import type { FiltersInput } from './schema';
import { filtersSchema } from './schema';

/**
 * PostHog's `validate_filters` (`posthog/api/feature_flag.py`; messages as PostHog words them, every error on
 * `attr: "filters"`). Pure: the filters in, the filters to store out (payload objects normalized to
 * JSON text, as PostHog stores what its UI sends), or a ValidationError.
 */

const invalid = (detail: string, code = 'invalid_input'): ValidationError =>
  new ValidationError(code, detail, 'filters');

/** PostHog's MAX_PROPERTY_VALUES. */
const maxPropertyValues = 1000;

/** Flock's own bound: a flag is one DynamoDB item (400 KB), so its filters stay well below. */
const maxFiltersBytes = 256 * 1024;

/** The first issue of a structural check, with `filters__` before its path, like DRF's nested attrs. */
function structureError(error: z.ZodError): ValidationError {
  const first = validationErrorFromZod(error);
  return new ValidationError(first.code, first.detail, first.attr ? `filters__${first.attr}` : 'filters');
}

function checkPropertyTypes(filters: FiltersInput, groups: NonNullable<FiltersInput['groups']>): void {
  const properties = groups.flatMap((condition) => condition.properties ?? []);
  const aggregation = filters.aggregation_group_type_index;
  if (aggregation === null || aggregation === undefined) {
    if (!properties.every((property) => ['person', 'cohort'].includes(property.type ?? 'person')))
      throw invalid('Filters are not valid (can only use person and cohort properties)');
  } else if (
    !properties.every((property) => property.type === 'group' && property.group_type_index === aggregation)
  ) {
    throw invalid('Filters are not valid (can only use group properties)');
  }
}

function checkConditions(groups: NonNullable<FiltersInput['groups']>, variants: ReadonlySet<string>): void {
  for (const condition of groups) {
    if (condition.variant && !variants.has(condition.variant))
      throw invalid('Filters are not valid (variant override does not exist)');
    for (const property of condition.properties ?? []) {
      if (Array.isArray(property.value) && property.value.length > maxPropertyValues)
        throw invalid(
          `Property group expressions of type ${property.key} cannot contain more than ${maxPropertyValues} values.`,
        );
    }
  }
}

function isValidJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Payload objects become JSON text; text must already be JSON; other JSON values stay as they are. */
function normalizePayloads(raw: unknown, multivariate: boolean, variants: ReadonlySet<string>) {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalid('Payloads must be passed as a dictionary');
  const payloads: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(raw as Record<string, JsonValue>)) {
    if (typeof value === 'string' && !isValidJsonText(value))
      throw invalid('Payload value is not valid JSON');
    const stored =
      typeof value === 'object' && value !== null && !Array.isArray(value) ? JSON.stringify(value) : value;
    Object.defineProperty(payloads, key, {
      value: stored,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const keys = Object.keys(payloads);
  if (multivariate) {
    if (!keys.every((key) => variants.has(key)))
      throw invalid('Payload keys must match a variant key for multivariate flags');
  } else if (keys.length > 1 || keys.some((key) => key !== 'true')) {
    throw invalid("Payload keys must be 'true' for boolean flags");
  }
  return payloads;
}

/**
 * Validated filters to store. `creating`: a new flag must have at least one condition set (PostHog
 * checks that on POST only: an existing flag may be left with none).
 */
export function validateFilters(raw: Readonly<Record<string, unknown>>, creating: boolean): FlagFilters {
  if (Buffer.byteLength(JSON.stringify(raw)) > maxFiltersBytes)
    throw invalid(`Filters are too large (at most ${maxFiltersBytes / 1024} KB of JSON).`);
  const parsed = filtersSchema.safeParse(raw);
  if (!parsed.success) throw structureError(parsed.error);
  const filters = parsed.data;
  const groups = filters.groups ?? [];
  if (creating && groups.length === 0)
    throw invalid('Feature flags must have at least one condition set (group).');
  checkPropertyTypes(filters, groups);

  const variantList = filters.multivariate?.variants ?? [];
  const variants = new Set(variantList.map((variant) => variant.key));
  if (variantList.length > 0) {
    const sum = variantList.reduce((total, variant) => total + variant.rollout_percentage, 0);
    if (sum !== 100)
      throw invalid('Invalid variant definitions: Variant rollout percentages must sum to 100.');
  }
  checkConditions(groups, variants);

  const payloads = normalizePayloads(filters.payloads, Boolean(filters.multivariate), variants);
  const { payloads: _raw, ...rest } = filters;
  return { ...rest, groups, ...(payloads !== undefined ? { payloads } : {}) };
}

/** A flag created without filters: PostHog's legacy default, one condition for everyone. */
export const everyoneFilters: FlagFilters = { groups: [{ properties: [], rollout_percentage: null }] };
