import { randomUUID } from 'node:crypto';
import { postJson, privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sharedLocalServer } from '../helpers/local-server';

interface EventsPage {
  count: number | null;
  next: string | null;
  previous: string | null;
  results: {
    id: string;
    event: string;
    distinct_id: string;
    properties: Record<string, unknown>;
    timestamp: string;
  }[];
}

describe('the local pipeline: capture → SQS → consumer → DynamoDB → events API', () => {
  let server: LocalServer;
  let eventsPath: string;

  beforeAll(async () => {
    server = await sharedLocalServer('pipeline');
    eventsPath = `/api/projects/${server.credentials.projectId}/events/`;
  });

  afterAll(async () => {
    await server.stop();
  });

  const listEvents = async (query = '') => {
    const response = await privateApi(server).get<EventsPage>(`${eventsPath}${query}`);
    expect(response.status).toBe(200);
    return response.body;
  };

  const waitForEvent = (uuid: string) =>
    eventually(`event ${uuid} to be stored`, async () =>
      (await listEvents()).results.find((event) => event.id === uuid),
    );

  it('stores an event sent to /capture/ and lists it through the private API', async () => {
    // Prepare
    const uuid = randomUUID();
    // Act
    const response = await postJson(server, '/capture/', {
      api_key: server.credentials.projectApiKey,
      event: 'signed up',
      uuid,
      properties: { distinct_id: 'user-1', plan: 'pro' },
    });
    // Assess
    expect(response).toMatchObject({ status: 200, body: { status: 1 } });
    const stored = await waitForEvent(uuid);
    expect(stored).toMatchObject({ event: 'signed up', distinct_id: 'user-1', properties: { plan: 'pro' } });
  });

  it('stores every event of a /batch/ request', async () => {
    const uuids = [randomUUID(), randomUUID(), randomUUID()];
    const response = await postJson(server, '/batch/', {
      api_key: server.credentials.projectApiKey,
      batch: uuids.map((uuid, i) => ({ event: `batch event ${i}`, distinct_id: 'user-2', uuid })),
    });
    expect(response.status).toBe(200);
    for (const uuid of uuids) await waitForEvent(uuid);
  });

  it('keeps one event when the same uuid is sent twice (SDK retry)', async () => {
    const uuid = randomUUID();
    const body = {
      api_key: server.credentials.projectApiKey,
      batch: [{ event: 'retried', distinct_id: 'user-3', uuid, timestamp: '2026-11-01T10:00:00Z' }],
      sent_at: '2026-11-01T10:00:01Z',
    };
    await postJson(server, '/batch/', body);
    await postJson(server, '/batch/', body);
    await waitForEvent(uuid);
    await postJson(server, '/capture/', {
      api_key: server.credentials.projectApiKey,
      event: 'marker',
      uuid: randomUUID(),
      distinct_id: 'm',
    });
    await eventually('the marker event to be stored', async () =>
      (await listEvents()).results[0]?.event === 'marker' ? true : undefined,
    );
    const all = await listEvents('?limit=1000');
    expect(all.results.filter((event) => event.id === uuid)).toHaveLength(1);
  });

  it('lists events newest first and pages through them with next', async () => {
    const uuids: string[] = [];
    const batch = Array.from({ length: 25 }, (_, i) => {
      const uuid = randomUUID();
      uuids.push(uuid);
      return {
        event: 'paged',
        distinct_id: 'pager',
        uuid,
        timestamp: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
      };
    });
    await postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch });
    await eventually('the 25 paged events to be stored', async () =>
      (await listEvents('?limit=1000')).results.filter((e) => e.event === 'paged').length === 25
        ? true
        : undefined,
    );

    const seen: EventsPage['results'] = [];
    let page = await listEvents('?limit=10');
    seen.push(...page.results);
    while (page.next) {
      const next = await fetch(page.next, {
        headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      });
      page = (await next.json()) as EventsPage;
      seen.push(...page.results);
    }
    const timestamps = seen.map((event) => event.timestamp);
    expect([...timestamps].sort().reverse()).toEqual(timestamps);
    expect(new Set(seen.map((event) => event.id)).size).toBe(seen.length);
    expect(
      seen
        .filter((event) => event.event === 'paged')
        .map((event) => event.id)
        .sort(),
    ).toEqual([...uuids].sort());
  });

  it('returns 401 invalid_api_key for an unknown project key', async () => {
    const response = await postJson(server, '/capture/', {
      api_key: 'phc_unknown',
      event: 'x',
      properties: { distinct_id: 'u' },
    });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      type: 'authentication_error',
      code: 'invalid_api_key',
      detail: 'Project API key invalid. You can find your project API key in PostHog project settings.',
      attr: null,
    });
  });

  it('returns 401 not_authenticated for the events list without a personal API key', async () => {
    const response = await privateApi(server, null).get(eventsPath);
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      attr: null,
    });
  });

  it('returns 401 invalid_personal_api_key for an unknown personal API key', async () => {
    const response = await privateApi(server, 'phx_not_a_key').get(eventsPath);
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({
      code: 'invalid_personal_api_key',
      detail: 'Invalid Personal API key.',
    });
  });

  it('returns 404 Project not found. for a project that does not exist', async () => {
    const response = await privateApi(server).get('/api/projects/999999/events/');
    expect(response).toMatchObject({
      status: 404,
      body: { type: 'invalid_request', code: 'not_found', detail: 'Project not found.' },
    });
  });

  it('answers unknown routes with 404 and known paths under another method with 405, in the documented shape', async () => {
    const notFound = await privateApi(server).get('/api/no-such-thing/');
    expect(notFound).toMatchObject({
      status: 404,
      body: { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null },
    });
    const wrongMethod = await privateApi(server).request('DELETE', eventsPath);
    expect(wrongMethod).toMatchObject({
      status: 405,
      body: { code: 'method_not_allowed', detail: 'Method "DELETE" not allowed.' },
    });
  });
});
