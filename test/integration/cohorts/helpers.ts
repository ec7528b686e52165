import { privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { eventually } from '../../helpers/local-server';

type Json = Record<string, unknown>;

/** Cohort filters whose properties are all of `values`. */
export const and = (...values: Json[]) => ({ properties: { type: 'AND', values } });

/** A behavioural filter: performed `event` in the last 7 days (or as `extra` says). */
export const performed = (event: string, extra: Json = {}) => ({
  type: 'behavioral',
  key: event,
  value: 'performed_event',
  event_type: 'events',
  time_value: 7,
  time_interval: 'day',
  ...extra,
});

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
