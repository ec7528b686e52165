import type { JsonObject } from '../shared/public/python';
import { isObject } from '../shared/domain/properties';
import type { PropertyBag } from '../shared/domain/flags';
import { cutDistinctId } from '../shared/domain/persons';
import { missingDistinctId } from './errors';

/**
 * What a `/decide` or `/flags` body asks (`posthog/api/decide.py`; as posthog-node and posthog-js send it), read leniently as
 * PostHog does: a field of the wrong type is ignored rather than refused, except `distinct_id`.
 */
export interface FlagsRequest {
  readonly distinctId: string;
  /** posthog-js sends it after identify: the id whose buckets continuity flags keep. */
  readonly anonDistinctId: string | undefined;
  readonly deviceId: string | undefined;
  readonly personProperties: PropertyBag;
  /** Group type name → group key. */
  readonly groups: Readonly<Record<string, unknown>>;
  /** Group type name → the group's properties. */
  readonly groupProperties: Readonly<Record<string, PropertyBag>>;
  /** `disable_flags: true`: answer the config only, evaluate nothing. */
  readonly disableFlags: boolean;
  /** Evaluate only these keys (posthog-node's single-flag calls, posthog-js `flag_keys`). */
  readonly flagKeys: readonly string[] | undefined;
}

/**
 * A JSON value as an identifier: strings as they are, numbers as Python's `str()` would print them,
 * cut to 200 characters as capture cuts every distinct id. A longer one can name no stored person,
 * and would only make the continuity overrides' keys and items grow with what the client sends.
 */
function identifier(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : cutDistinctId(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean' || isObject(value) || Array.isArray(value))
    return cutDistinctId(JSON.stringify(value));
  return undefined;
}

function objectOf(value: unknown): JsonObject {
  return isObject(value) ? value : {};
}

function groupPropertiesOf(value: unknown): Record<string, PropertyBag> {
  const result: Record<string, PropertyBag> = {};
  for (const [groupType, properties] of Object.entries(objectOf(value))) {
    if (isObject(properties)) result[groupType] = properties;
  }
  return result;
}

function keysOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((key): key is string => typeof key === 'string');
}

/**
 * The request's fields; 400 `missing_distinct_id` when flags are to be evaluated and there is no
 * usable `distinct_id` (a request with `disable_flags` needs none).
 */
export function flagsRequestOf(payload: unknown): FlagsRequest {
  const body = objectOf(payload);
  const disableFlags = body.disable_flags === true;
  const distinctId = identifier(body.distinct_id);
  if (distinctId === undefined && !disableFlags) throw missingDistinctId();
  return {
    distinctId: distinctId ?? '',
    anonDistinctId: identifier(body.$anon_distinct_id),
    deviceId: identifier(body.$device_id),
    personProperties: objectOf(body.person_properties),
    groups: objectOf(body.groups),
    groupProperties: groupPropertiesOf(body.group_properties),
    disableFlags,
    flagKeys: keysOf(body.flag_keys_to_evaluate) ?? keysOf(body.flag_keys),
  };
}
