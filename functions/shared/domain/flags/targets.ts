import { own } from './context';
import type { FlagContext } from './context';
import type { PropertyBag } from './types';

/**
 * Who a condition is about: the person (bucketed by distinct id, a continuity hash key, or the device)
 * or one of the request's groups (bucketed by its group key). `identifier` is what the rollout and
 * variant hashes read.
 */
export type Target =
  | { readonly kind: 'person'; readonly identifier: string; readonly properties: PropertyBag }
  | { readonly kind: 'group'; readonly identifier: string; readonly properties: PropertyBag }
  /** A group condition whose group type the request named no group of. */
  | { readonly kind: 'missing_group' }
  /** A group condition whose group type index the project's mapping doesn't have. */
  | { readonly kind: 'unknown_group_type' }
  /** A device-bucketed person condition without a device id: PostHog skips it. */
  | { readonly kind: 'missing_device' };

/** Group keys are strings or numbers (`{"company": 42}` buckets as "42"); anything else is no key. */
function groupKey(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The request's `$device_id`, else the person property posthog-node reads it from. */
export function deviceIdOf(context: FlagContext): string | undefined {
  return nonEmpty(context.input.deviceId) ?? nonEmpty(own(context.personProperties, '$device_id'));
}

export function isDeviceBucketed(context: FlagContext): boolean {
  return context.flag.bucketing_identifier === 'device_id';
}

/**
 * The person's bucketing identifier: the device when the flag is bucketed by device and one is
 * known; else the hash key stored for experience continuity (so buckets survive identify); else the
 * distinct id.
 */
export function personIdentifier(context: FlagContext, options: { continuity: boolean }): string {
  const { flag, input } = context;
  const deviceId = isDeviceBucketed(context) ? deviceIdOf(context) : undefined;
  const override = options.continuity ? own(input.hashKeyOverrides, flag.key) : undefined;
  return deviceId ?? override ?? input.distinctId;
}

function personTarget(context: FlagContext): Target {
  // PostHog skips device-bucketed conditions it can't bucket rather than fall back to the person.
  if (isDeviceBucketed(context) && deviceIdOf(context) === undefined) return { kind: 'missing_device' };
  const identifier = personIdentifier(context, { continuity: true });
  return { kind: 'person', identifier, properties: context.personProperties };
}

export function groupTarget(context: FlagContext, groupTypeIndex: number): Target {
  const { input } = context;
  const groupType = own(input.groupTypeMapping, String(groupTypeIndex));
  if (groupType === undefined) return { kind: 'unknown_group_type' };
  const rawKey = own(input.groups, groupType);
  const identifier = groupKey(rawKey);
  if (identifier === undefined) return { kind: 'missing_group' };
  // `$group_key` lets filters target the key itself; sent group properties win. Built once per
  // group type for every flag of the evaluation: a copy per condition multiplied the request's
  // group properties by the conditions written.
  let properties = context.groupProperties.get(groupType);
  if (properties === undefined) {
    properties = { $group_key: rawKey, ...own(input.groupProperties, groupType) };
    context.groupProperties.set(groupType, properties);
  }
  return { kind: 'group', identifier, properties };
}

/** A condition's own aggregation (mixed targeting) wins over the flag's. */
export function targetFor(context: FlagContext, conditionAggregation?: number | null): Target {
  const aggregation =
    typeof conditionAggregation === 'number'
      ? conditionAggregation
      : context.flag.filters.aggregation_group_type_index;
  return typeof aggregation === 'number' ? groupTarget(context, aggregation) : personTarget(context);
}
