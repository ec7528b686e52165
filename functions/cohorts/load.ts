import type { CohortRecord } from '../shared/db/cohorts';
import { getCohort } from '../shared/db/cohorts';
import { NotFoundError } from '../shared/http/errors';
import type { HttpEvent } from '../shared/http/types';

/** The `{id}` of the path as a cohort id; anything else is 404, as an unknown id is. */
export function cohortIdParam(event: HttpEvent): number {
  const raw = event.pathParameters?.id ?? '';
  if (!/^\d{1,15}$/.test(raw)) throw new NotFoundError();
  return Number(raw);
}

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
