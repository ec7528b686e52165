import { randomUUID } from 'node:crypto';
import { postJson, privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { eventually, sharedLocalServer } from '../../helpers/local-server';
import { newOrganization } from '../../helpers/organizations';

interface ApiEvent {
  id: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
  person: {
    uuid: string;
    distinct_ids: string[];
    is_identified: boolean;
    properties: Record<string, unknown>;
  } | null;
  elements: { tag_name: string | null; text: string | null; order: number }[];
  elements_chain: string;
}

interface Page {
  count: number | null;
  next: string | null;
  previous: string | null;
  results: ApiEvent[];
}

const minute = (n: number, second = 0): string => new Date(Date.UTC(2026, 9, 1, 12, n, second)).toISOString();

describe('the events API', () => {
  let server: LocalServer;
  let path: string;
  const api = () => privateApi(server);
  const list = async (query: string): Promise<Page> => {
    const response = await api().get<Page>(`${path}${query}`);
    expect(response.status).toBe(200);
    return response.body;
  };
  const send = (batch: Record<string, unknown>[]) =>
    postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch, sent_at: undefined });

  const signups = Array.from({ length: 6 }, (_, i) => ({
    event: 'signed up',
    distinct_id: i % 2 === 0 ? 'alice' : 'bob',
    uuid: randomUUID(),
    timestamp: minute(i),
    properties: { plan: i < 3 ? 'pro' : 'free', seats: i, referrer: i === 4 ? 'Google Ads' : undefined },
  }));
  const pageviews = Array.from({ length: 4 }, (_, i) => ({
    event: '$pageview',
    distinct_id: 'alice',
    uuid: randomUUID(),
    timestamp: minute(10 + i),
    properties: {
      $current_url: `https://example.com/${i}`,
      $elements_chain: 'a.nav:href="/x"nth-child="1"text="Home"',
    },
  }));

  beforeAll(async () => {
    server = await sharedLocalServer('events API');
    path = `/api/projects/${server.credentials.projectId}/events/`;
    await send([...signups, ...pageviews]);
    // anon-1 browses, then identifies as carol: one person with both distinct ids.
    await send([
      { event: 'browsed', distinct_id: 'anon-1', uuid: randomUUID(), timestamp: minute(20) },
      {
        event: '$identify',
        distinct_id: 'carol',
        uuid: randomUUID(),
        timestamp: minute(21),
        properties: { $anon_distinct_id: 'anon-1', $set: { email: 'carol@example.com' } },
      },
    ]);
    await eventually(
      'the 12 fixture events to be stored',
      async () => ((await list('?limit=1000')).results.length >= 12 ? true : undefined),
      30_000,
    );
  }, 90_000);

  afterAll(async () => {
    await server.stop();
  });

  it('lists events newest first with their person and parsed elements', async () => {
    const page = await list('');
    const timestamps = page.results.map((event) => event.timestamp);
    expect([...timestamps].sort().reverse()).toEqual(timestamps);
    const pageview = page.results.find((event) => event.event === '$pageview')!;
    expect(pageview.elements).toEqual([expect.objectContaining({ tag_name: 'a', text: 'Home', order: 0 })]);
    expect(pageview.person).toMatchObject({ distinct_ids: ['alice'], is_identified: false });
    expect(page.count).toBe(12);
  });

  it('filters by event name', async () => {
    const page = await list('?event=signed%20up');
    expect(page.results.map((event) => event.id).sort()).toEqual(signups.map((event) => event.uuid).sort());
  });

  it('filters by distinct id', async () => {
    const page = await list('?distinct_id=bob');
    expect(page.results.map((event) => event.distinct_id)).toEqual(['bob', 'bob', 'bob']);
  });

  it('filters by person: every distinct id of that person', async () => {
    const identify = (await list('?event=%24identify')).results[0]!;
    const personId = identify.person!.uuid;
    expect(identify.person!.distinct_ids.sort()).toEqual(['anon-1', 'carol']);
    const page = await list(`?person_id=${personId}`);
    expect(page.results.map((event) => event.event)).toEqual(['$identify', 'browsed']);
    expect((await list(`?person_id=${randomUUID()}`)).results).toEqual([]);
  });

  it.each([
    ['exact', '[{"key":"plan","value":"pro"}]', [0, 1, 2]],
    ['is_not', '[{"key":"plan","value":"pro","operator":"is_not"}]', [3, 4, 5]],
    ['icontains', '[{"key":"referrer","value":"google","operator":"icontains"}]', [4]],
    ['gt', '[{"key":"seats","value":"3","operator":"gt"}]', [4, 5]],
    ['lte', '[{"key":"seats","value":1,"operator":"lte"}]', [0, 1]],
    ['is_set', '[{"key":"referrer","operator":"is_set"}]', [4]],
    ['regex', '[{"key":"plan","value":"^fr","operator":"regex"}]', [3, 4, 5]],
  ])('filters by properties with %s', async (_operator, filters, indexes) => {
    const page = await list(`?event=signed%20up&properties=${encodeURIComponent(filters)}`);
    expect(page.results.map((event) => event.id).sort()).toEqual(indexes.map((i) => signups[i]!.uuid).sort());
  });

  it('filters by person properties', async () => {
    const filters = encodeURIComponent('[{"key":"email","value":"carol@example.com","type":"person"}]');
    const page = await list(`?properties=${filters}`);
    expect(page.results.map((event) => event.event).sort()).toEqual(['$identify', 'browsed']);
  });

  it('answers 400 Properties are unparsable! for a malformed filter', async () => {
    const response = await api().get(`${path}?properties=not-json`);
    expect(response).toMatchObject({
      status: 400,
      body: { type: 'validation_error', code: 'invalid_input', detail: 'Properties are unparsable!' },
    });
  });

  it('bounds by time, exclusively, and combines every filter', async () => {
    const between = await list(`?after=${minute(1)}&before=${minute(4)}`);
    expect(between.results.map((event) => event.timestamp)).toEqual([minute(3), minute(2)]);
    const combined = await list(
      `?event=signed%20up&distinct_id=alice&after=${minute(0)}&properties=${encodeURIComponent('[{"key":"plan","value":"free"}]')}`,
    );
    expect(combined.results.map((event) => event.id)).toEqual([signups[4]!.uuid]);
  });

  it('orders oldest first with orderBy ["timestamp"]', async () => {
    const page = await list(`?orderBy=${encodeURIComponent('["timestamp"]')}&limit=3`);
    expect(page.results.map((event) => event.timestamp)).toEqual([minute(0), minute(1), minute(2)]);
    const next = (await (
      await fetch(page.next!, { headers: { authorization: `Bearer ${server.credentials.personalApiKey}` } })
    ).json()) as Page;
    expect(next.results.map((event) => event.timestamp)).toEqual([minute(3), minute(4), minute(5)]);
  });

  it('returns one event by uuid, 400 for a malformed id and 404 for an unknown one', async () => {
    const found = await api().get<ApiEvent>(`${path}${signups[0]!.uuid}/`);
    expect(found).toMatchObject({
      status: 200,
      body: { id: signups[0]!.uuid, event: 'signed up', distinct_id: 'alice' },
    });
    expect(await api().get(`${path}not-a-uuid/`)).toMatchObject({
      status: 400,
      body: { type: 'validation_error', code: 'invalid', detail: 'Invalid UUID' },
    });
    const unknown = randomUUID();
    expect(await api().get(`${path}${unknown}/`)).toMatchObject({
      status: 404,
      body: { code: 'not_found', detail: `No events exist for event UUID ${unknown}` },
    });
  });

  it('exports CSV: a header and one row per event, nested values flattened', async () => {
    const response = await fetch(`${server.credentials.apiUrl}${path}?format=csv&event=signed%20up`, {
      headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
    });
    expect(response.headers.get('content-type')).toContain('text/csv');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="events-project-${server.credentials.projectId}.csv"`,
    );
    const lines = (await response.text()).trim().split('\r\n');
    expect(lines).toHaveLength(7);
    const header = lines[0]!.split(',');
    expect(header.slice(0, 4)).toEqual(['id', 'event', 'distinct_id', 'timestamp']);
    expect(header).toEqual(
      expect.arrayContaining(['properties.plan', 'properties.seats', 'person.distinct_ids.0']),
    );
  });

  it('never shows one project’s events to another project', async () => {
    const other = await newOrganization(server, { organizationName: 'Other org' });
    const otherApi = privateApi(server, other.personalApiKey);
    const own = await otherApi.get<Page>(`/api/projects/${other.projectId}/events/`);
    expect(own).toMatchObject({ status: 200, body: { results: [], count: 0 } });
    const lookup = await otherApi.get(`/api/projects/${other.projectId}/events/${signups[0]!.uuid}/`);
    expect(lookup.status).toBe(404);
    const foreign = await otherApi.get(path);
    expect(foreign.status).toBe(403);
  });
});

describe('paging through many events', () => {
  let server: LocalServer;

  beforeAll(async () => {
    server = await sharedLocalServer('paging through many events');
  });

  afterAll(async () => {
    await server.stop();
  });

  it('walks 250 events to the end in pages of 100, 100 and 50, each exactly once', async () => {
    const uuids = Array.from({ length: 250 }, () => randomUUID());
    const batch = uuids.map((uuid, i) => ({
      event: 'tick',
      distinct_id: `user-${i % 7}`,
      uuid,
      timestamp: new Date(Date.UTC(2026, 9, 2, 0, 0, 0, i * 997)).toISOString(),
    }));
    await postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch });
    const path = `/api/projects/${server.credentials.projectId}/events/`;
    await eventually(
      'the 250 events to be stored',
      async () => {
        const page = await privateApi(server).get<Page>(`${path}?limit=1000`);
        return page.body.results.length === 250 ? true : undefined;
      },
      30_000,
    );

    const sizes: number[] = [];
    const seen: string[] = [];
    let url: string | null = `${server.credentials.apiUrl}${path}`;
    let first: Page | undefined;
    while (url) {
      const response = await fetch(url, {
        headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      });
      const page = (await response.json()) as Page;
      first ??= page;
      sizes.push(page.results.length);
      seen.push(...page.results.map((event) => event.id));
      url = page.next;
    }
    expect(sizes).toEqual([100, 100, 50]);
    expect(seen.sort()).toEqual([...uuids].sort());
    expect(first?.count).toBeNull();
    expect(first?.next).toMatch(/limit=100&offset=100&cursor=|cursor=.*limit=100|offset=100/);
  }, 90_000);

  it('lists every distinct value of a new key among the recent events, not only the sampled ones', async () => {
    // GIVEN 8 events, each with its own value of a key never sent before (the sample writes about one in 25)
    const key = `shade_${randomUUID().slice(0, 8)}`;
    const shades = Array.from({ length: 8 }, (_, i) => `shade ${i}`);
    const batch = shades.map((shade) => ({
      event: 'shaded',
      distinct_id: 'shader',
      uuid: randomUUID(),
      properties: { [key]: shade },
    }));
    await postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch });
    const path = `/api/projects/${server.credentials.projectId}/events/`;
    await eventually(
      'every shaded event to be stored',
      async () => {
        const page = await privateApi(server).get<Page>(`${path}?event=shaded`);
        return page.body.results.length === shades.length ? true : undefined;
      },
      30_000,
    );
    // WHEN the values of that key are listed as soon as the events are stored
    const response = await privateApi(server).get<{ name: string }[]>(`${path}values/?key=${key}`);
    // THEN all 8 are there
    expect(response.status).toBe(200);
    expect(response.body.map((value) => value.name).sort()).toEqual(shades);
  }, 60_000);

  it('serves distinct recent values of a property from the ingestion-time sample', async () => {
    const colors = ['Red', 'green', 'blue', 'light green', 'yellow'];
    const batch = Array.from({ length: 200 }, (_, i) => ({
      event: 'painted',
      distinct_id: 'painter',
      uuid: randomUUID(),
      properties: { color: colors[i % colors.length] },
    }));
    await postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch });
    const path = `/api/projects/${server.credentials.projectId}/events/values/`;
    const values = await eventually(
      'every color among the values of the key',
      async () => {
        const response = await privateApi(server).get<{ name: string }[]>(`${path}?key=color`);
        return response.body.length === colors.length ? response.body : undefined;
      },
      30_000,
    );
    expect(values.map((value) => value.name).sort()).toEqual([...colors].sort());
    const filtered = await privateApi(server).get<{ name: string }[]>(`${path}?key=color&value=GREEN`);
    expect(filtered.body.map((value) => value.name).sort()).toEqual(['green', 'light green']);
    const custom = await privateApi(server).get<{ name: string }[]>(`${path}?key=custom_event`);
    expect(custom.body.map((value) => value.name)).toEqual(expect.arrayContaining(['painted', 'tick']));
  }, 60_000);
});
