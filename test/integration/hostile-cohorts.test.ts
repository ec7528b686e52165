import { randomUUID } from 'node:crypto';
import { privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sharedLocalServer } from '../helpers/local-server';
import { setToolEnvironment } from '../../bin/environment';
import { activeFlagFields, dynamicCohortFields } from '../helpers/stored-records';
import { postFlags } from './flags/helpers';

interface Answer {
  id: number;
  attr?: string | null;
  code?: string;
  detail?: string;
  type?: string;
}

const gold = { key: 'plan', type: 'person', value: 'gold' };
const inCohort = (id: number) => ({ key: 'id', type: 'cohort', value: id });
const and = (values: unknown[]) => ({ properties: { type: 'AND', values } });
const references = (id: number, times: number) => and(Array.from({ length: times }, () => inCohort(id)));
const cohortFlag = (key: string, cohortIds: number[]) => ({
  key,
  filters: { groups: [{ properties: cohortIds.map(inCohort), rollout_percentage: 100 }] },
});

/** Cohort graphs a hostile tenant can write, through the local server. */
describe('hostile cohort graphs', () => {
  let server: LocalServer;
  const run = randomUUID().slice(0, 8);
  const api = () => privateApi(server);
  const cohorts = () => `/api/projects/${server.credentials.projectId}/cohorts/`;
  const flags = () => `/api/projects/${server.credentials.projectId}/feature_flags/`;

  /**
   * `/decide` and `/flags` for a person whose plan the request tells. How fast they answer is what
   * `errors` tells: each flag's evaluation has a step budget (functions/shared/domain/flags/budget.ts),
   * and a flag past it fails with `errorsWhileComputingFlags`, so an answer without errors walked at
   * most that many groups and filters, however the graph is written out.
   */
  const decideFor = async (key: string, plan: string) => {
    const body = {
      token: server.credentials.projectApiKey,
      distinct_id: `u-${run}`,
      person_properties: { plan },
    };
    // One at a time (so no second container starts) until the flag is seen: flag definitions are
    // cached for 5 s per container.
    for (const path of ['/decide/?v=3', '/flags/?v=2'])
      await eventually(
        `${path} to answer the new flag`,
        async () => {
          const answer = await postFlags<{ featureFlags?: object; flags?: object }>(server, path, body);
          return key in (answer.body.featureFlags ?? answer.body.flags ?? {}) ? true : undefined;
        },
        30_000,
      );
    const decide = await postFlags<{
      featureFlags: Record<string, boolean>;
      errorsWhileComputingFlags: boolean;
    }>(server, '/decide/?v=3', body);
    const flagsAnswer = await postFlags<{
      flags: Record<string, { enabled: boolean }>;
      errorsWhileComputingFlags: boolean;
    }>(server, '/flags/?v=2', body);
    return {
      statuses: [decide.status, flagsAnswer.status],
      values: [decide.body.featureFlags?.[key], flagsAnswer.body.flags?.[key]?.enabled],
      errors: [decide.body.errorsWhileComputingFlags, flagsAnswer.body.errorsWhileComputingFlags],
    };
  };

  beforeAll(async () => {
    server = await sharedLocalServer('hostile cohorts');
  });

  afterAll(async () => {
    await server.stop();
  });

  it('refuses the write that would take a 200⁴ graph past the cap, and answers flags on what was built', async () => {
    // Prepare: one filter, then levels of 200 references to the level below.
    const built: number[] = [];
    const answers: number[] = [];
    let refused: Answer | undefined;
    let below = (await api().post<Answer>(cohorts(), { name: `L1 ${run}`, filters: and([gold]) })).body.id;
    built.push(below);
    // Act
    for (let level = 2; level <= 4; level++) {
      const answer = await api().post<Answer>(cohorts(), {
        name: `L${level} ${run}`,
        filters: references(below, 200),
      });
      answers.push(answer.status);
      if (answer.status !== 201) {
        refused ??= answer.body;
        continue;
      }
      below = answer.body.id;
      built.push(below);
    }
    const flag = await api().post(flags(), cohortFlag(`graph-${run}`, [built.at(-1)!]));
    const member = await decideFor(`graph-${run}`, 'gold');
    const outsider = await decideFor(`graph-${run}`, 'free');

    // Assess: level 2 is 601 filters and groups expanded, level 3 would be 120,401.
    expect(answers).toEqual([201, 400, 400]);
    expect(refused).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: 'filters' });
    expect(refused?.detail).toContain('120401 filters and groups');
    expect(flag.status).toBe(201);
    expect(member).toMatchObject({ statuses: [200, 200], values: [true, true], errors: [false, false] });
    expect(outsider).toMatchObject({ statuses: [200, 200], values: [false, false], errors: [false, false] });
  });

  it('refuses a flag whose cohorts together exceed the cap', async () => {
    const base = (await api().post<Answer>(cohorts(), { name: `base ${run}`, filters: and([gold]) })).body.id;
    const wide = (
      await api().post<Answer>(cohorts(), { name: `wide ${run}`, filters: references(base, 200) })
    ).body.id;

    // 20 × (1 + 601) filters and groups.
    const answer = await api().post<Answer>(flags(), cohortFlag(`wide-${run}`, Array(20).fill(wide)));

    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: 'validation_error', attr: 'filters' });
  });

  it('answers /decide and /flags right, within the step budget, on a 200⁴ graph stored before the cap', async () => {
    // Prepare: written straight to the table, as a project may hold from before writes were capped.
    setToolEnvironment({ AWS_ENDPOINT_URL_DYNAMODB: server.endpoints.dynamodbEndpoint });
    const { createCohort } = await import('../../functions/shared/db/cohorts');
    const { createFeatureFlag } = await import('../../functions/shared/db/feature-flags');
    const table = server.endpoints.tables.main;
    const projectId = server.credentials.projectId;
    const stored = (name: string, filters: Record<string, unknown>) =>
      createCohort(table, dynamicCohortFields(projectId, name, filters), new Date());
    let top = (await stored(`old L1 ${run}`, and([gold]))).id;
    for (let level = 2; level <= 4; level++)
      top = (await stored(`old L${level} ${run}`, references(top, 200))).id;
    await createFeatureFlag(
      table,
      projectId,
      activeFlagFields(`old-graph-${run}`, cohortFlag('', [top]).filters),
    );

    // Act
    const member = await decideFor(`old-graph-${run}`, 'gold');
    const outsider = await decideFor(`old-graph-${run}`, 'free');

    // Assess
    expect(member).toMatchObject({ statuses: [200, 200], values: [true, true], errors: [false, false] });
    expect(outsider).toMatchObject({ statuses: [200, 200], values: [false, false], errors: [false, false] });
  });
});

/** Every path a cohort definition can take is validated. */
describe('cohort write validation', () => {
  let server: LocalServer;
  const run = randomUUID().slice(0, 8);
  const api = () => privateApi(server);
  const cohorts = () => `/api/projects/${server.credentials.projectId}/cohorts/`;
  const multipart = async (fields: Record<string, string>) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    const response = await fetch(`${server.credentials.apiUrl}${cohorts()}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      body: form,
    });
    return { status: response.status, body: (await response.json()) as Answer };
  };

  beforeAll(async () => {
    server = await sharedLocalServer('cohort write validation');
  });

  afterAll(async () => {
    await server.stop();
  });

  it('validates a static cohort turned dynamic by PATCH {"is_static": false}', async () => {
    const unchecked = and([{ key: 'plan', type: 'person', value: 'gold', operator: 'no_such_operator' }]);
    const created = await api().post<Answer>(cohorts(), {
      name: `static ${run}`,
      is_static: true,
      filters: unchecked,
    });

    const answer = await api().patch<Answer>(`${cohorts()}${created.body.id}/`, { is_static: false });

    expect(created.status).toBe(201);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: 'validation_error', attr: 'filters' });
    expect(answer.body.detail).toContain('no_such_operator');
  });

  it('refuses multipart filters nested deeper than a JSON body may be', async () => {
    let deep: unknown = 'gold';
    for (let level = 0; level < 1_000; level++) deep = [deep];
    const filters = and([{ key: 'plan', type: 'person', value: deep }]);

    const answer = await multipart({ name: `deep ${run}`, filters: JSON.stringify(filters) });

    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: 'validation_error', code: 'parse_error', attr: 'filters' });
  });

  it('refuses legacy groups whose properties are not a list of filters, on groups', async () => {
    const numeric = await api().post<Answer>(cohorts(), {
      name: `numeric ${run}`,
      groups: [{ properties: 5 }],
    });
    const listOfNumbers = await api().post<Answer>(cohorts(), {
      name: `list ${run}`,
      groups: [{ properties: [1] }],
    });

    for (const answer of [numeric, listOfNumbers]) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ type: 'validation_error', attr: 'groups' });
    }
  });
});
