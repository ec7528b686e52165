import { randomUUID } from 'node:crypto';
import { postJson, privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, startLocalServer } from '../helpers/local-server';
import type { CalculatedCohort } from './cohorts/helpers';
import { and, performed } from './cohorts/helpers';

/** A cohort calculation that fails, through a local server that runs the schedule every second. */
describe('cohort calculation failures', () => {
  let server: LocalServer;

  beforeAll(async () => {
    // A calculation may read at most 2 events here: more fails it, as too large a window does on AWS.
    server = await startLocalServer({ cohortIntervalSeconds: 1, env: { FLOCK_COHORT_MAX_EVENTS: '2' } });
  });

  afterAll(async () => {
    await server.stop();
  });

  it('counts a failed calculation in errors_calculating and stops calculating', async () => {
    const batch = [1, 2, 3].map((n) => ({ event: 'clicked', uuid: randomUUID(), distinct_id: `user-${n}` }));
    await postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch });
    const api = privateApi(server);
    const base = `/api/projects/${server.credentials.projectId}/cohorts/`;
    await eventually('the 3 clicks to be stored', async () => {
      const { body } = await api.get<{ results: unknown[] }>(
        `/api/projects/${server.credentials.projectId}/events/?event=clicked`,
      );
      return body.results.length === 3 ? true : undefined;
    });

    const { body: created } = await api.post<CalculatedCohort>(base, {
      name: 'clickers',
      filters: and(performed('clicked')),
    });
    const failed = await eventually(
      'the cohort to count a failed calculation',
      async () => {
        const { body } = await api.get<CalculatedCohort>(`${base}${created.id}/`);
        return body.errors_calculating > 0 ? body : undefined;
      },
      30_000,
    );

    expect(failed).toMatchObject({ is_calculating: false, count: null, last_calculation: null });
    const members = await api.get<{ results: unknown[] }>(`${base}${created.id}/persons/`);
    expect(members.body.results).toEqual([]);
  });
});
