import { randomUUID } from 'node:crypto';
import { PostHog } from 'posthog-node';
import { postJson, privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sharedLocalServer } from '../helpers/local-server';
import { createFlag, postFlags } from './flags/helpers';

interface Group {
  group_type_index: number;
  group_key: string;
  group_properties: Record<string, unknown>;
  created_at: string;
}
interface GroupPage {
  next: string | null;
  previous: string | null;
  results: Group[];
}

/**
 * The groups API in PostHog's shapes (posthog/api/group.py): groups stored from `$groupidentify`
 * (sent by posthog-node and in a batch), listed newest first by cursor, searched, found by key, and
 * the group types; each project sees its own groups only.
 */
describe('groups API', () => {
  let server: LocalServer;
  let other: { id: number; token: string };
  const run = randomUUID().slice(0, 8);
  const key = (name: string) => `${name}-${run}`;
  const api = () => privateApi(server);
  const base = () => `/api/projects/${server.credentials.projectId}`;
  const list = (query: string) => api().get<GroupPage>(`${base()}/groups/?${query}`);
  const follow = (url: string) => api().get<GroupPage>(url.slice(server.credentials.apiUrl.length));
  const find = (index: number, groupKey: string, project = server.credentials.projectId) =>
    api().get<Group>(
      `/api/projects/${project}/groups/find/?group_type_index=${index}&group_key=${encodeURIComponent(groupKey)}`,
    );
  const companyIndex = async () => {
    const types = await api().get<{ group_type: string; group_type_index: number }[]>(
      `${base()}/groups_types/`,
    );
    return types.body.find((type) => type.group_type === 'company')?.group_type_index;
  };
  /** 105 `team` groups, created a second apart: `team-000` oldest. */
  const teams = Array.from({ length: 105 }, (_, n) => key(`team-${String(n).padStart(3, '0')}`));

  beforeAll(async () => {
    server = await sharedLocalServer('groups-api');
    const project = await api().post<{ id: number; api_token: string }>('/api/projects/', {
      name: `Groups elsewhere ${run}`,
    });
    other = { id: project.body.id, token: project.body.api_token };

    // Prepare: two companies through posthog-node, the same company key in another project.
    const client = new PostHog(server.credentials.projectApiKey, {
      host: server.credentials.apiUrl,
      flushAt: 1,
      flushInterval: 0,
    });
    client.groupIdentify({
      groupType: 'company',
      groupKey: key('acme'),
      properties: { name: 'Acme Corp', plan: 'pro' },
    });
    client.groupIdentify({
      groupType: 'company',
      groupKey: key('globex'),
      properties: { name: 'Globex', plan: 'free' },
    });
    await client.shutdown();
    await postJson(server, '/batch/', {
      api_key: other.token,
      batch: [
        {
          event: '$groupidentify',
          distinct_id: '$company_x',
          properties: { $group_type: 'company', $group_key: key('acme'), $group_set: { name: 'Not yours' } },
        },
      ],
    });
    const start = Date.now() - 3_600_000;
    await postJson(server, '/batch/', {
      api_key: server.credentials.projectApiKey,
      batch: teams.map((teamKey, n) => ({
        uuid: randomUUID(),
        event: '$groupidentify',
        distinct_id: `$team_${teamKey}`,
        timestamp: new Date(start + n * 1_000).toISOString(),
        properties: {
          $group_type: 'team',
          $group_key: teamKey,
          $group_set: { size: n, tier: n % 10 === 7 ? 'Gold' : 'basic' },
        },
      })),
    });
    await eventually(
      'every group to be listed',
      async () => {
        const index = await companyIndex();
        if (index === undefined) return undefined;
        const companies = await list(`group_type_index=${index}`);
        const teamIndex = 1 - index;
        const first = await list(`group_type_index=${teamIndex}`);
        if (companies.body.results.length !== 2 || first.body.results.length !== 100 || !first.body.next)
          return undefined;
        const second = await follow(first.body.next);
        return second.body.results.length === 5 ? true : undefined;
      },
      60_000,
    );
  }, 120_000);

  afterAll(async () => {
    await server.stop();
  });

  it('serves the group types by index', async () => {
    const types = await api().get<unknown[]>(`${base()}/groups_types/`);
    expect(types.status).toBe(200);
    const index = (await companyIndex())!;
    expect(types.body).toEqual(
      [
        { group_type: 'company', group_type_index: index, name_singular: null, name_plural: null },
        { group_type: 'team', group_type_index: 1 - index, name_singular: null, name_plural: null },
      ].sort((a, b) => a.group_type_index - b.group_type_index),
    );
  });

  it('finds a group by type index and key, with the properties posthog-node set', async () => {
    const index = (await companyIndex())!;
    const found = await find(index, key('acme'));
    expect(found.status).toBe(200);
    expect(found.body).toEqual({
      group_type_index: index,
      group_key: key('acme'),
      group_properties: { name: 'Acme Corp', plan: 'pro' },
      created_at: expect.any(String),
    });
    const missing = await find(index, key('initech'));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      type: 'invalid_request',
      code: 'not_found',
      detail: 'Not found.',
      attr: null,
    });
    // A type index the project has not got, and the other type's index, find nothing either.
    expect((await find(4, key('acme'))).status).toBe(404);
    expect((await find(1 - index, key('acme'))).status).toBe(404);
  });

  it('lists newest first by cursor, next and previous', async () => {
    const teamIndex = 1 - (await companyIndex())!;
    const first = await list(`group_type_index=${teamIndex}`);
    expect(first.status).toBe(200);
    expect(first.body.previous).toBeNull();
    expect(first.body.results.map((group) => group.group_key)).toEqual([...teams].reverse().slice(0, 100));
    expect(first.body.results[0]).toMatchObject({
      group_type_index: teamIndex,
      group_properties: { size: 104 },
    });
    const second = await follow(first.body.next!);
    expect(second.body.results.map((group) => group.group_key)).toEqual([...teams].reverse().slice(100));
    expect(second.body.next).toBeNull();
    const back = await follow(second.body.previous!);
    expect(back.body.results.map((group) => group.group_key)).toEqual(
      first.body.results.map((group) => group.group_key),
    );
    expect(back.body.previous).toBeNull();
    expect(back.body.next).not.toBeNull();
  });

  it('searches the key and the properties, case-insensitively', async () => {
    const index = (await companyIndex())!;
    const byKey = await list(`group_type_index=${index}&search=${encodeURIComponent(key('GLOBEX'))}`);
    expect(byKey.body.results.map((group) => group.group_key)).toEqual([key('globex')]);
    const byProperty = await list(`group_type_index=${index}&search=acme%20corp`);
    expect(byProperty.body.results.map((group) => group.group_key)).toEqual([key('acme')]);
    const gold = await list(`group_type_index=${1 - index}&search=gold`);
    expect(gold.body.results.map((group) => group.group_properties.size)).toEqual([
      97, 87, 77, 67, 57, 47, 37, 27, 17, 7,
    ]);
    expect(gold.body.next).toBeNull();
  });

  it("never shows another project's groups", async () => {
    const index = (await companyIndex())!;
    const companies = await list(`group_type_index=${index}&search=${encodeURIComponent('not yours')}`);
    expect(companies.body.results).toEqual([]);
    const theirs = await eventually('the other project’s group', async () => {
      const found = await find(0, key('acme'), other.id);
      return found.status === 200 ? found.body : undefined;
    });
    expect(theirs.group_properties).toEqual({ name: 'Not yours' });
    expect((await find(index, key('acme'))).body.group_properties).toEqual({
      name: 'Acme Corp',
      plan: 'pro',
    });
  });

  it('evaluates group flags against the stored properties, overridden by the request, as posthog-node does', async () => {
    const index = (await companyIndex())!;
    const flagKey = `pro-companies-${run}`;
    const plan = { key: 'plan', value: ['pro'], operator: 'exact', type: 'group', group_type_index: index };
    await createFlag(server, {
      key: flagKey,
      filters: {
        aggregation_group_type_index: index,
        groups: [{ properties: [plan], rollout_percentage: 100 }],
      },
    });
    const decide = async (company: string, groupProperties?: Record<string, unknown>) => {
      const response = await postFlags<{ featureFlags: Record<string, unknown> }>(server, '/decide/?v=3', {
        token: server.credentials.projectApiKey,
        distinct_id: `someone-${run}`,
        groups: { company },
        ...(groupProperties ? { group_properties: { company: groupProperties } } : {}),
      });
      return response.body.featureFlags[flagKey];
    };
    expect(await decide(key('acme'))).toBe(true);
    expect(await decide(key('globex'))).toBe(false);
    expect(await decide(key('initech'))).toBe(false);
    expect(await decide(key('acme'), { plan: 'free' })).toBe(false);
    expect(await decide(key('globex'), { plan: 'pro' })).toBe(true);

    // posthog-node's local evaluation, given the stored properties, agrees with the server's answer
    // from the store alone, and so does its remote evaluation.
    const client = new PostHog(server.credentials.projectApiKey, {
      host: server.credentials.apiUrl,
      personalApiKey: server.credentials.personalApiKey,
      flushAt: 1,
      flushInterval: 0,
    });
    try {
      for (const company of [key('acme'), key('globex')]) {
        const stored = (await find(index, company)).body.group_properties;
        const local = await client.getFeatureFlag(flagKey, `someone-${run}`, {
          groups: { company },
          groupProperties: { company: stored },
          onlyEvaluateLocally: true,
        });
        const remote = await client.getFeatureFlag(flagKey, `someone-${run}`, { groups: { company } });
        expect([company, local, remote]).toEqual([company, await decide(company), await decide(company)]);
      }
    } finally {
      await client.shutdown();
    }
  });

  it('answers 400 naming the parameter for a missing or bad group_type_index, key or cursor', async () => {
    const expectInvalid = async (query: string, attr: string) => {
      const response = await api().get<{ type: string; attr: string }>(`${base()}/groups/${query}`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ type: 'validation_error', attr });
    };
    await expectInvalid('', 'group_type_index');
    await expectInvalid('?group_type_index=5', 'group_type_index');
    await expectInvalid('?group_type_index=x', 'group_type_index');
    await expectInvalid('?group_type_index=0&cursor=nope', 'cursor');
    await expectInvalid('find/?group_type_index=0', 'group_key');
  });
});
