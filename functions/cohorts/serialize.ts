import type { CohortRecord } from '../shared/db/cohorts';
import { definitionOf } from '../shared/domain/cohorts/filters';

/** A cohort as the API answers it (spec §2.5). */
export function serializeCohort(cohort: CohortRecord) {
  return {
    id: cohort.id,
    name: cohort.name,
    description: cohort.description,
    groups: cohort.groups,
    deleted: cohort.deleted,
    filters: definitionOf(cohort),
    is_calculating: cohort.is_calculating,
    created_by: cohort.created_by,
    created_at: cohort.created_at,
    last_calculation: cohort.last_calculation,
    errors_calculating: cohort.errors_calculating,
    count: cohort.count,
    is_static: cohort.is_static,
  };
}
