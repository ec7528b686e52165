import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { generatePersonalApiKey, maskKey, sha256Hex } from '../../../functions/shared/auth/secrets';
import { keys } from '../../../functions/shared/db/keys';
import { privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { documentClientOf, sharedLocalServer } from '../../helpers/local-server';

/** Personal API key scopes through the local server: each route asks for PostHog's scope. */
interface Key {
  id: string;
  value: string | null;
  scopes: string[];
}

interface Page<T> {
  count: number;
  results: T[];
}

let server: LocalServer;
beforeAll(async () => void (server = await sharedLocalServer('scopes', { organization: true })));
afterAll(() => server.stop());

const api = (key?: string) => privateApi(server, key ?? server.credentials.personalApiKey);
const project = () => `/api/projects/${server.credentials.projectId}`;

/** A new key of the bootstrapped user with these scopes, made through the API. */
async function keyWith(scopes: string[]): Promise<string> {
  const created = await api().post<Key>('/api/personal_api_keys/', { label: scopes.join(' '), scopes });
  expect(created.status).toBe(201);
  return created.body.value!;
}

const missing = (scope: string) => ({
  status: 403,
  body: {
    type: 'authentication_error',
    code: 'permission_denied',
    detail: `API key missing required scope '${scope}'`,
    attr: null,
  },
});

describe('personal API key scopes', () => {
  it("lets a feature_flag:read key list flags and answers PostHog's 403 to its flag create", async () => {
    // Prepare
    const reader = api(await keyWith(['feature_flag:read']));

    // Act
    const list = await reader.get<Page<unknown>>(`${project()}/feature_flags/`);
    const create = await reader.post(`${project()}/feature_flags/`, { key: 'nope', filters: { groups: [] } });

    // Assess
    expect(list.status).toBe(200);
    expect(create).toMatchObject(missing('feature_flag:write'));
    expect((await api().get<Page<unknown>>(`${project()}/feature_flags/`)).body.count).toBe(0);
  });

  it('lets a cohort:write key read cohorts (write implies read), and nothing else', async () => {
    // Prepare
    const writer = api(await keyWith(['cohort:write']));

    // Act
    const list = await writer.get(`${project()}/cohorts/`);
    const flags = await writer.get(`${project()}/feature_flags/`);

    // Assess
    expect(list.status).toBe(200);
    expect(flags).toMatchObject(missing('feature_flag:read'));
  });

  it("asks for both cohort:read and person:read on a cohort's persons", async () => {
    // Prepare
    const cohort = await api().post<{ id: number }>(`${project()}/cohorts/`, {
      name: 'All',
      groups: [{ properties: [{ key: 'email', type: 'person', value: 'is_set', operator: 'is_set' }] }],
    });
    const cohortsOnly = api(await keyWith(['cohort:read']));
    const both = api(await keyWith(['cohort:read', 'person:read']));

    // Act, Assess
    expect(await cohortsOnly.get(`${project()}/cohorts/${cohort.body.id}/persons/`)).toMatchObject(
      missing('person:read'),
    );
    expect((await both.get(`${project()}/cohorts/${cohort.body.id}/persons/`)).status).toBe(200);
  });

  it("answers 403 on every route whose scope the key lacks: events are PostHog's query object", async () => {
    const flagsOnly = api(await keyWith(['feature_flag:write']));
    const cohortsOnly = api(await keyWith(['cohort:read']));
    expect(await flagsOnly.get(`${project()}/events/`)).toMatchObject(missing('query:read'));
    expect(await flagsOnly.get('/api/users/@me/')).toMatchObject(missing('user:read'));
    expect(await flagsOnly.get('/api/projects/')).toMatchObject(missing('project:read'));
    expect(await cohortsOnly.get('/api/feature_flag/local_evaluation/')).toMatchObject(
      missing('feature_flag:read'),
    );
    expect((await flagsOnly.get('/api/feature_flag/local_evaluation/')).status).toBe(200);
  });

  it('shows scopes on personal_api_keys/: `*` for a key made without any', async () => {
    // Prepare
    const scoped = await api().post<Key>('/api/personal_api_keys/', {
      label: 'scoped',
      scopes: ['query:read', 'feature_flag:write', 'query:read'],
    });
    const unscoped = await api().post<Key>('/api/personal_api_keys/', { label: 'unscoped' });

    // Act
    const list = await api().get<Page<Key>>('/api/personal_api_keys/');
    const one = await api().get<Key>(`/api/personal_api_keys/${scoped.body.id}/`);

    // Assess
    expect(scoped.body.scopes).toEqual(['query:read', 'feature_flag:write']);
    expect(unscoped.body.scopes).toEqual(['*']);
    const shown = new Map(list.body.results.map((key) => [key.id, key.scopes]));
    expect(shown.get(scoped.body.id)).toEqual(['query:read', 'feature_flag:write']);
    expect(shown.get(unscoped.body.id)).toEqual(['*']);
    expect(one.body.scopes).toEqual(['query:read', 'feature_flag:write']);
  });

  it('shows a key its own scopes at personal_api_keys/@current/', async () => {
    // Prepare
    const created = await api().post<Key>('/api/personal_api_keys/', {
      label: 'self',
      scopes: ['personal_api_key:read', 'cohort:write'],
    });

    // Act
    const current = await api(created.body.value!).get<Key>('/api/personal_api_keys/@current/');

    // Assess
    expect(current).toMatchObject({
      status: 200,
      body: { id: created.body.id, value: null, scopes: ['personal_api_key:read', 'cohort:write'] },
    });
  });

  it('refuses a key that would be broader than the one creating it', async () => {
    // Prepare
    const minter = api(await keyWith(['personal_api_key:write', 'feature_flag:read']));

    // Act
    const wider = await minter.post('/api/personal_api_keys/', {
      label: 'wider',
      scopes: ['feature_flag:write'],
    });
    const everything = await minter.post('/api/personal_api_keys/', { label: 'all' });
    const narrower = await minter.post<Key>('/api/personal_api_keys/', {
      label: 'narrower',
      scopes: ['feature_flag:read', 'personal_api_key:read'],
    });

    // Assess
    expect(wider).toMatchObject(missing('feature_flag:write'));
    expect(everything).toMatchObject(missing('*'));
    expect(narrower.status).toBe(201);
    expect(narrower.body.scopes).toEqual(['feature_flag:read', 'personal_api_key:read']);
  });

  it('needs personal_api_key:write to create a key at all', async () => {
    const reader = api(await keyWith(['personal_api_key:read']));
    expect((await reader.get('/api/personal_api_keys/')).status).toBe(200);
    expect(
      await reader.post('/api/personal_api_keys/', { label: 'x', scopes: ['personal_api_key:read'] }),
    ).toMatchObject(missing('personal_api_key:write'));
  });

  it.each([
    [['feature_flag:admin'], 'Invalid scope: feature_flag:admin'],
    [['nothing:read'], 'Invalid scope: nothing:read'],
    [['feature_flag'], 'Invalid scope: feature_flag'],
    [[], 'This list may not be empty.'],
  ])('answers 400 naming scopes for %j', async (scopes, detail) => {
    const response = await api().post('/api/personal_api_keys/', { label: 'bad', scopes });
    expect(response).toMatchObject({
      status: 400,
      body: { type: 'validation_error', attr: 'scopes', detail },
    });
  });

  it('lets a key stored before keys had scopes do everything, shown as `*`', async () => {
    // Prepare: the item as Flock wrote it before scopes, without a `scopes` attribute.
    const me = await api().get<{ id: number }>('/api/users/@me/');
    const value = generatePersonalApiKey();
    const id = randomUUID();
    const createdAt = new Date().toISOString();
    const table = documentClientOf(server);
    await table.send(
      new PutCommand({
        TableName: server.endpoints.tables.main,
        Item: {
          ...keys.personalApiKey(sha256Hex(value)),
          ...keys.personalApiKeysOfUser(me.body.id, createdAt, id),
          id,
          user_id: me.body.id,
          label: 'old',
          mask_value: maskKey(value),
          created_at: createdAt,
          last_used_at: null,
        },
      }),
    );
    const old = api(value);

    // Act
    const created = await old.post<{ id: number }>(`${project()}/feature_flags/`, {
      key: 'from-an-old-key',
      filters: { groups: [{ rollout_percentage: 100, properties: [] }] },
    });
    const minted = await old.post<Key>('/api/personal_api_keys/', { label: 'child' });
    const shown = await old.get<Key>(`/api/personal_api_keys/${id}/`);

    // Assess
    expect(created.status).toBe(201);
    expect(minted).toMatchObject({ status: 201, body: { scopes: ['*'] } });
    expect(shown.body.scopes).toEqual(['*']);
  });
});
