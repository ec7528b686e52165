import type { FeatureFlag, FlagCondition, PropertyBag, PropertyFilter } from '../shared/domain/flags';

/**
 * Which stored person properties a flag can read (PostHog's `can_compute_locally`, `posthog/models/feature_flag/flag_matching.py`):
 * when the request's `person_properties` carry every one of them, the stored person cannot change
 * the answer (the request's values win), so `/decide` skips reading it.
 */
export interface PersonNeeds {
  /** Person property keys read by the flag's person-targeted conditions. */
  readonly keys: readonly string[];
  /** Something only the stored person can tell (a cohort), whatever the request sends. */
  readonly storedPerson: boolean;
}

const none: PersonNeeds = { keys: [], storedPerson: false };

const listOf = <T>(value: unknown): readonly T[] => (Array.isArray(value) ? (value as T[]) : []);

/** Every condition list a flag decides with: release conditions, early access, holdouts, legacy. */
function conditionsOf(flag: FeatureFlag): readonly FlagCondition[] {
  const { filters } = flag;
  const release =
    'groups' in filters ? listOf<FlagCondition>(filters.groups) : [{ properties: filters.properties }];
  return [
    ...release,
    ...listOf<FlagCondition>(filters.super_groups),
    ...listOf<FlagCondition>(filters.holdout_groups),
  ];
}

const isPersonTargeted = (flag: FeatureFlag, condition: FlagCondition | undefined): boolean =>
  typeof (condition?.aggregation_group_type_index ?? flag.filters.aggregation_group_type_index) !== 'number';

export function personNeedsOf(flag: FeatureFlag): PersonNeeds {
  if (!flag.active || flag.deleted) return none;
  const keys = new Set<string>();
  let storedPerson = false;
  for (const condition of conditionsOf(flag)) {
    if (!isPersonTargeted(flag, condition)) continue;
    for (const property of listOf<PropertyFilter>(condition?.properties)) {
      const type = property?.type ?? 'person';
      if (type === 'cohort') storedPerson = true;
      else if (type === 'person') keys.add(String(property.key));
    }
  }
  if (flag.filters.feature_enrollment) keys.add(`$feature_enrollment/${flag.key}`);
  if (flag.bucketing_identifier === 'device_id') keys.add('$device_id');
  // Always known without the store: PostHog adds it to the person properties of every evaluation.
  keys.delete('distinct_id');
  return { keys: [...keys], storedPerson };
}

/** Whether the request's person properties leave some of `needs` to the stored person. */
export function needsStoredPerson(needs: PersonNeeds, requestProperties: PropertyBag): boolean {
  return needs.storedPerson || needs.keys.some((key) => !Object.hasOwn(requestProperties, key));
}
