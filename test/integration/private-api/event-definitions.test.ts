import { postJson, privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { eventually, sharedLocalServer } from '../../helpers/local-server';

/**
 * Event definitions, through the local server: created and counted by ingestion (capture → queue →
 * consumer), read and annotated through the private API.
 */
let server: LocalServer;

interface UserBasic {
  id: number;
  uuid: string;
  distinct_id: string;
  first_name: string;
  email: string;
}

interface Definition {
  id: string;
  name: string;
  owner: number | null;
  description: string | null;
  tags: string[];
  volume_30_day: number | null;
  created_at: string | null;
  updated_at: string | null;
  updated_by: UserBasic | null;
  last_seen_at: string | null;
  verified: boolean;
  verified_at: string | null;
  verified_by: UserBasic | null;
  post_to_slack: boolean;
  [field: string]: unknown;
}

interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

const api = () => privateApi(server);
const base = () => `/api/projects/${server.credentials.projectId}/event_definitions/`;

/** Sent events: 3 × "signed up", 2 × "$pageview", 1 × "order placed". */
const sent = [
  ['signed up', 'a'],
  ['signed up', 'b'],
  ['signed up', 'c'],
  ['$pageview', 'a'],
  ['$pageview', 'b'],
  ['order placed', 'a'],
] as const;

let me: UserBasic;

beforeAll(async () => {
  server = await sharedLocalServer('event definitions');
  const response = await postJson(server, '/batch/', {
    api_key: server.credentials.projectApiKey,
    batch: sent.map(([event, distinctId]) => ({ event, properties: { distinct_id: distinctId } })),
  });
  expect(response.status).toBe(200);
  // The consumer writes definitions and counters asynchronously: wait until all three are counted.
  await eventually('the 3 definitions with every event counted', async () => {
    const page = await api().get<Page<Definition>>(base());
    const total = page.body.results?.reduce((sum, definition) => sum + (definition.volume_30_day ?? 0), 0);
    return page.body.count === 3 && total === sent.length ? page : undefined;
  });
  const user = await api().get<UserBasic>('/api/users/@me/');
  me = {
    id: user.body.id,
    uuid: user.body.uuid,
    distinct_id: user.body.distinct_id,
    first_name: user.body.first_name,
    email: user.body.email,
  };
});

afterAll(async () => {
  await server.stop();
});

const definitionNamed = async (name: string): Promise<Definition> => {
  const page = await api().get<Page<Definition>>(`${base()}?search=${encodeURIComponent(name)}`);
  const found = page.body.results.find((definition) => definition.name === name);
  if (!found) throw new Error(`no definition ${name}`);
  return found;
};

describe('GET /api/projects/:id/event_definitions/', () => {
  it('lists the ingested event names ordered by name, with last_seen_at and volume_30_day', async () => {
    // Act
    const page = await api().get<Page<Definition>>(base());

    // Assess
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ count: 3, next: null, previous: null });
    expect(page.body.results.map((definition) => [definition.name, definition.volume_30_day])).toEqual([
      ['$pageview', 2],
      ['order placed', 1],
      ['signed up', 3],
    ]);
    for (const definition of page.body.results) {
      expect(definition.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(definition.last_seen_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(definition).toMatchObject({ verified: false, tags: [], owner: null, query_usage_30_day: null });
      expect(Object.keys(definition)).toHaveLength(21);
    }
  });

  it('searches names by every word, case-insensitively', async () => {
    const page = await api().get<Page<Definition>>(`${base()}?search=UP%20sign`);
    expect(page.body.results.map((definition) => definition.name)).toEqual(['signed up']);
  });

  it('filters custom and PostHog events apart', async () => {
    const custom = await api().get<Page<Definition>>(`${base()}?event_type=event_custom`);
    expect(custom.body.results.map((definition) => definition.name)).toEqual(['order placed', 'signed up']);
    const posthog = await api().get<Page<Definition>>(`${base()}?event_type=event_posthog`);
    expect(posthog.body.results.map((definition) => definition.name)).toEqual(['$pageview']);
  });

  it('pages with limit and offset', async () => {
    const page = await api().get<Page<Definition>>(`${base()}?limit=1&offset=1`);
    expect(page.body.results.map((definition) => definition.name)).toEqual(['order placed']);
    expect(page.body.next).toBe(`${server.credentials.apiUrl}${base()}?limit=1&offset=2`);
    expect(page.body.previous).toBe(`${server.credentials.apiUrl}${base()}?limit=1`);
  });

  it('is served for @current too', async () => {
    const page = await api().get<Page<Definition>>('/api/projects/@current/event_definitions/');
    expect(page.body.count).toBe(3);
  });
});

describe('GET /api/projects/:id/event_definitions/:id/', () => {
  it('retrieves a definition by its uuid', async () => {
    const listed = await definitionNamed('signed up');
    const response = await api().get<Definition>(`${base()}${listed.id}/`);
    expect(response).toMatchObject({ status: 200, body: listed });
  });

  it('answers 404 for an unknown uuid and for an id that is no uuid', async () => {
    for (const id of ['5b0f3f0e-7d0c-4f6c-8e0a-0c8f3a8f2f11', 'signed%20up']) {
      const response = await api().get(`${base()}${id}/`);
      expect({ id, status: response.status }).toEqual({ id, status: 404 });
    }
  });

  it("answers 404 for another project's definition, even within the organization", async () => {
    // Prepare
    const other = await api().post<{ id: number }>('/api/projects/', { name: 'Other' });
    const definition = await definitionNamed('signed up');

    // Act
    const response = await api().get(`/api/projects/${other.body.id}/event_definitions/${definition.id}/`);
    const patched = await api().patch(`/api/projects/${other.body.id}/event_definitions/${definition.id}/`, {
      description: 'x',
    });

    // Assess
    expect(response).toMatchObject({ status: 404, body: { code: 'not_found', detail: 'Not found.' } });
    expect(patched.status).toBe(404);
  });
});

describe('PATCH /api/projects/:id/event_definitions/:id/', () => {
  it('sets owner, description, tags and post_to_slack, recording updated_by and updated_at', async () => {
    // Prepare
    const definition = await definitionNamed('order placed');

    // Act
    const response = await api().patch<Definition>(`${base()}${definition.id}/`, {
      owner: me.id,
      description: 'An order was placed',
      tags: ['Revenue', ' revenue ', 'checkout'],
      post_to_slack: true,
      name: 'renamed',
      volume_30_day: 1000,
    });

    // Assess
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      name: 'order placed',
      owner: me.id,
      description: 'An order was placed',
      tags: ['revenue', 'checkout'],
      post_to_slack: true,
      volume_30_day: 1,
      updated_by: me,
      last_seen_at: definition.last_seen_at,
      created_at: definition.created_at,
    });
    expect(response.body.updated_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await api().get<Definition>(`${base()}${definition.id}/`)).body).toEqual(response.body);
  });

  it('verifies (recording verified_by and verified_at), keeps the first verification, and unverifies', async () => {
    // Prepare
    const definition = await definitionNamed('signed up');

    // Act
    const verified = await api().patch<Definition>(`${base()}${definition.id}/`, { verified: true });
    const again = await api().patch<Definition>(`${base()}${definition.id}/`, { verified: true });
    const unverified = await api().patch<Definition>(`${base()}${definition.id}/`, { verified: false });

    // Assess
    expect(verified.body).toMatchObject({ verified: true, verified_by: me });
    expect(verified.body.verified_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(again.body.verified_at).toBe(verified.body.verified_at);
    expect(unverified.body).toMatchObject({ verified: false, verified_by: null, verified_at: null });
  });

  it('answers 400 naming the field for an invalid value or an owner outside the organization', async () => {
    const definition = await definitionNamed('$pageview');
    const wrongType = await api().patch(`${base()}${definition.id}/`, { tags: 'not-a-list' });
    expect(wrongType).toMatchObject({ status: 400, body: { type: 'validation_error', attr: 'tags' } });
    const stranger = await api().patch(`${base()}${definition.id}/`, { owner: 999 });
    expect(stranger).toMatchObject({
      status: 400,
      body: { code: 'does_not_exist', attr: 'owner', detail: 'Invalid pk "999" - object does not exist.' },
    });
  });

  it('keeps API edits when ingestion sees the event again', async () => {
    // Prepare
    const definition = await definitionNamed('$pageview');
    await api().patch(`${base()}${definition.id}/`, { description: 'Page views' });

    // Act
    await postJson(server, '/capture/', {
      api_key: server.credentials.projectApiKey,
      event: '$pageview',
      properties: { distinct_id: 'z' },
    });

    // Assess
    const updated = await eventually('the definition to count 3 events', async () => {
      const current = await api().get<Definition>(`${base()}${definition.id}/`);
      return current.body.volume_30_day === 3 ? current.body : undefined;
    });
    expect(updated.description).toBe('Page views');
  });
});
