import type { CohortRecord } from '../shared/db/cohorts';
import { getCohort } from '../shared/db/cohorts';
import { NotFoundError } from '../shared/http/errors';
import { integerPathId } from '../shared/http/request';
import type { HttpEvent } from '../shared/http/types';

/** The `{id}` of the path as a cohort id; anything else is 404, as an unknown id is. */
export const cohortIdParam = (event: HttpEvent): number => integerPathId(event);

/** The cohort the path names, deleted ones included (PostHog retrieves them); 404 otherwise. */
export async function cohortOfPath(
  tableName: string,
  projectId: number,
  event: HttpEvent,
  consistentRead = false,
): Promise<CohortRecord> {
  const cohort = await getCohort(tableName, projectId, cohortIdParam(event), consistentRead);
  if (!cohort) throw new NotFoundError();
  return cohort;
}
