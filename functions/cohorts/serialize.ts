import type { CohortRecord } from '../shared/db/cohorts';
import { definitionOf } from '../shared/domain/cohorts/filters';

/**
 * Failed calculations: the schedule counts an attempt from its claim (so a run that dies is counted),
 * but while its lease holds the attempt has not failed yet and is not shown.
 */
function failedCalculations(cohort: CohortRecord, now: Date): number {
  const running = !!cohort.calculating_until && cohort.calculating_until > now.toISOString();
  return Math.max(0, cohort.errors_calculating - (running ? 1 : 0));
}

/** A cohort as the API answers it. */
export function serializeCohort(cohort: CohortRecord, now = new Date()) {
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
    errors_calculating: failedCalculations(cohort, now),
    count: cohort.count,
    is_static: cohort.is_static,
  };
}
