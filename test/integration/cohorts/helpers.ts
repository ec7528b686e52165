import { privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { eventually } from '../../helpers/local-server';

/** A cohort as the API returns it (the calculation's fields). */
export interface CalculatedCohort {
  id: number;
  name: string | null;
  is_calculating: boolean;
  last_calculation: string | null;
  errors_calculating: number;
  count: number | null;
}

/** The cohort once a calculation newer than `after` has finished (the server's schedule runs it). */
export function calculatedCohort(
  server: LocalServer,
  cohortId: number,
  after = '',
): Promise<CalculatedCohort> {
  const path = `/api/projects/${server.credentials.projectId}/cohorts/${cohortId}/`;
  return eventually(
    `a calculation of cohort ${cohortId} newer than ${after || 'none'}`,
    async () => {
      const { body } = await privateApi(server).get<CalculatedCohort>(path);
      return !body.is_calculating && (body.last_calculation ?? '') > after ? body : undefined;
    },
    30_000,
  );
}
