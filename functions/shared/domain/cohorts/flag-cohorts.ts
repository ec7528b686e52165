import type { FlagCondition, FlagFilters, PropertyFilter } from '../flags/types';
import { cohortIdOf } from './filters';
import type { CohortGraph } from './graph';

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

/** Groups and filters of a flag's cohorts written out in place: each cohort filter and its expansion. */
export function flagCohortsSize(flag: { readonly filters: FlagFilters }, graph: CohortGraph): number {
  return cohortIdsOfFlag(flag).reduce((size, id) => size + 1 + graph.expandedSize(id), 0);
}
