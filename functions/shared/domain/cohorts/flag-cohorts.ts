import type { FlagCondition, FlagFilters, PropertyFilter } from '../flags/types';
import { cohortIdOf } from './filters';

const listOf = <T>(value: unknown): readonly T[] => (Array.isArray(value) ? (value as T[]) : []);

/** Every cohort id a flag's conditions name (release conditions, early access, holdouts, legacy). */
export function cohortIdsOfFlag(flag: { readonly filters: FlagFilters }): number[] {
  const { filters } = flag;
  const conditions = [
    ...listOf<FlagCondition>(filters.groups),
    ...listOf<FlagCondition>(filters.super_groups),
    ...listOf<FlagCondition>(filters.holdout_groups),
  ];
  const properties = [
    ...conditions.flatMap((condition) => listOf<PropertyFilter>(condition?.properties)),
    ...listOf<PropertyFilter>(filters.properties),
  ];
  return properties.flatMap((property) => {
    const id = property?.type === 'cohort' ? cohortIdOf(property.value) : undefined;
    return id === undefined ? [] : [id];
  });
}
