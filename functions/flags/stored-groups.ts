import type { FeatureFlagRecord } from '../shared/db/feature-flags';
import { readGroups } from '../shared/db/groups';
import type { PropertyBag } from '../shared/domain/flags';
import type { PropertyFilter } from '../shared/domain/flags/types';
import type { FlagsRequest } from './flags-request';

/**
 * Group flags evaluate against the stored group's properties, overridden by the `group_properties`
 * the request sends (as PostHog's decide does, posthog/models/feature_flag/flag_matching.py). Only
 * the groups the request names whose type some flag's conditions test properties of are read, in one
 * batched read, and only when the request's own properties of that group do not already hold every
 * key those conditions test (PostHog's matcher computes such a condition "locally", from the
 * overrides alone). A request naming no such group, or flags that only roll a group out, read nothing.
 */

/** The group type indexes the flags aggregate by (the flag's, or a condition's own). */
function aggregatedIndexes(flags: readonly FeatureFlagRecord[]): Set<number> {
  const indexes = new Set<number>();
  for (const { filters } of flags) {
    if (typeof filters.aggregation_group_type_index === 'number')
      indexes.add(filters.aggregation_group_type_index);
    for (const condition of filters.groups ?? [])
      if (typeof condition.aggregation_group_type_index === 'number')
        indexes.add(condition.aggregation_group_type_index);
  }
  return indexes;
}

/**
 * The property keys the flags' group-aggregated conditions test, by group type index (a condition's
 * own index, else the flag's). Cohort and flag-dependency filters are not group properties.
 */
function keysTested(flags: readonly FeatureFlagRecord[]): Map<number, Set<string>> {
  const tested = new Map<number, Set<string>>();
  const add = (index: unknown, properties: readonly PropertyFilter[] | null | undefined): void => {
    if (typeof index !== 'number') return;
    for (const property of properties ?? []) {
      if (property.type === 'cohort' || property.type === 'flag') continue;
      const keys = tested.get(index) ?? new Set<string>();
      keys.add(property.key);
      tested.set(index, keys);
    }
  };
  for (const { filters } of flags) {
    const flagIndex = filters.aggregation_group_type_index;
    add(flagIndex, filters.properties);
    for (const condition of filters.groups ?? [])
      add(
        typeof condition.aggregation_group_type_index === 'number'
          ? condition.aggregation_group_type_index
          : flagIndex,
        condition.properties,
      );
  }
  return tested;
}

/** The request's groups (type name → key) that the flags need stored properties of. */
export function storedGroupsWanted(
  flags: readonly FeatureFlagRecord[],
  groupTypeMapping: Readonly<Record<string, string>>,
  request: FlagsRequest,
): { groupType: string; groupKey: string }[] {
  if (Object.keys(request.groups).length === 0) return [];
  const wanted: { groupType: string; groupKey: string }[] = [];
  for (const [index, keys] of keysTested(flags)) {
    const groupType = Object.hasOwn(groupTypeMapping, String(index))
      ? groupTypeMapping[String(index)]
      : undefined;
    if (groupType === undefined || !Object.hasOwn(request.groups, groupType)) continue;
    const sent = Object.hasOwn(request.groupProperties, groupType)
      ? request.groupProperties[groupType]
      : undefined;
    if (sent !== undefined && [...keys].every((key) => Object.hasOwn(sent, key))) continue;
    const groupKey = request.groups[groupType];
    if (typeof groupKey === 'string' || typeof groupKey === 'number')
      wanted.push({ groupType, groupKey: String(groupKey) });
  }
  return wanted;
}

/** Each wanted group's stored properties overlaid by the request's, with the request's other groups. */
export async function groupPropertiesWithStored(
  tableName: string,
  projectId: number,
  wanted: readonly { groupType: string; groupKey: string }[],
  requestProperties: Readonly<Record<string, PropertyBag>>,
): Promise<Readonly<Record<string, PropertyBag>>> {
  if (wanted.length === 0) return requestProperties;
  const stored = await readGroups(tableName, projectId, wanted);
  // fromEntries, not assignment: a group type may be named `__proto__`.
  return {
    ...requestProperties,
    ...Object.fromEntries(
      stored.map((group) => [
        group.groupType,
        {
          ...group.properties,
          ...(Object.hasOwn(requestProperties, group.groupType) ? requestProperties[group.groupType] : {}),
        },
      ]),
    ),
  };
}

/** The keys of the flags aggregated by a group type: those a failed read of groups leaves unknown. */
export const groupFlagKeys = (flags: readonly FeatureFlagRecord[]): string[] =>
  flags.filter((flag) => aggregatedIndexes([flag]).size > 0).map((flag) => flag.key);
