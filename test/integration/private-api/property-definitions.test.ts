import { postJson, privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { eventually, sharedLocalServer } from '../../helpers/local-server';

/**
 * Property definitions, through the local server: written by ingestion when first seen (capture →
 * queue → consumer), typed from the first value as PostHog's plugin-server types them, and listed
 * with PostHog's filters.
 */
let server: LocalServer;

interface Definition {
  id: string;
  name: string;
  is_numerical: boolean;
  property_type: string | null;
  tags: string[];
  is_seen_on_filtered_events: boolean | null;
}

interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

const api = () => privateApi(server);
const base = () => `/api/projects/${server.credentials.projectId}/property_definitions/`;

async function send(batch: Record<string, unknown>[]): Promise<void> {
  const response = await postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch });
  expect(response.status).toBe(200);
}

const namesOf = (page: Page<Definition>) => page.results.map((definition) => definition.name);

beforeAll(async () => {
  server = await sharedLocalServer('property-definitions');
  await send([
    {
      event: 'signed up',
      properties: {
        distinct_id: 'a',
        plan: 'pro',
        seats: 3,
        trial: true,
        trial_text: 'FALSE',
        signup_date: '2024-01-02',
        created: '2024-01-02T03:04:05.678Z',
        sent_at_time: 1_700_000_000,
        sent_at_timestamp_ms: '1700000000000',
        seats_count: 12_345_678_901,
        utm_source: 42,
        '$feature/beta': true,
        $feature_flag_response: false,
        nothing: null,
        list: [1, 2],
        $set: { email: 'a@example.com', age: 31 },
        $set_once: { first_seen_on: '2024-01-02 10:00:00' },
      },
    },
    { event: '$pageview', properties: { distinct_id: 'a', $current_url: 'https://example.com', plan: 7 } },
  ]);
  await eventually('the definitions of both events', async () => {
    const page = await api().get<Page<Definition>>(`${base()}?limit=100`);
    return namesOf(page.body).includes('$current_url') && namesOf(page.body).includes('trial_text')
      ? page
      : undefined;
  });
});

afterAll(async () => {
  await server.stop();
});

describe('GET /api/projects/:id/property_definitions/', () => {
  it('types each property by its first value as PostHog does, and never retypes it', async () => {
    await send([{ event: 'later', properties: { distinct_id: 'b', plan: 12, seats: 'many' } }]);
    await eventually('the later event is defined', async () => {
      const page = await api().get<Page<Definition>>(
        `${base()}?event_names=["later"]&filter_by_event_names=true`,
      );
      return page.body.count === 3 ? page : undefined; // plan, seats, $ip
    });
    const page = await api().get<Page<Definition>>(`${base()}?limit=100`);
    expect(page.status).toBe(200);
    const types = Object.fromEntries(
      page.body.results.map((d) => [d.name, [d.property_type, d.is_numerical]]),
    );
    expect(types).toEqual({
      $current_url: ['String', false],
      '$feature/beta': ['String', false],
      $feature_flag_response: ['String', false],
      // set by capture from the source address
      $ip: ['String', false],
      created: ['DateTime', false],
      list: [null, false],
      nothing: [null, false],
      plan: ['String', false],
      seats: ['Numeric', true],
      seats_count: ['Numeric', true],
      sent_at_time: ['DateTime', false],
      sent_at_timestamp_ms: ['String', false],
      signup_date: ['DateTime', false],
      trial: ['Boolean', false],
      trial_text: ['Boolean', false],
      utm_source: ['String', false],
    });
    // `distinct_id` is hidden, `$set`/`$set_once` are not event properties.
    expect(page.body.results.every((definition) => definition.is_seen_on_filtered_events === null)).toBe(
      true,
    );
    expect(page.body.results[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: '$current_url',
      is_numerical: false,
      property_type: 'String',
      tags: [],
      is_seen_on_filtered_events: null,
    });
  });

  it('types a property first seen untyped by its first typed value', async () => {
    await send([{ event: 'later', properties: { distinct_id: 'b', nothing: 5 } }]);
    const typed = await eventually('`nothing` typed', async () => {
      const page = await api().get<Page<Definition>>(`${base()}?properties=nothing`);
      return page.body.results[0]?.property_type === 'Numeric' ? page.body.results[0] : undefined;
    });
    expect(typed.is_numerical).toBe(true);
  });

  it('lists person properties from $set and $set_once with type=person', async () => {
    const page = await api().get<Page<Definition>>(`${base()}?type=person`);
    expect(page.status).toBe(200);
    // Ingestion copies the campaign parameters into `$set` and them and the URL into `$set_once`.
    expect(page.body.results.map((d) => [d.name, d.property_type])).toEqual([
      ['$initial_current_url', 'String'],
      ['$initial_utm_source', 'Numeric'],
      ['age', 'Numeric'],
      ['email', 'String'],
      ['first_seen_on', 'DateTime'],
      ['utm_source', 'String'],
    ]);
  });

  it('marks and orders the properties seen with event_names, and keeps only those with filter_by_event_names', async () => {
    const marked = await api().get<Page<Definition>>(
      `${base()}?event_names=${encodeURIComponent('["$pageview"]')}&limit=4`,
    );
    expect(marked.status).toBe(200);
    expect(marked.body.results.map((d) => [d.name, d.is_seen_on_filtered_events])).toEqual([
      ['$current_url', true],
      ['$ip', true],
      ['plan', true],
      ['$feature/beta', false],
    ]);
    const only = await api().get<Page<Definition>>(
      `${base()}?event_names=${encodeURIComponent('["$pageview"]')}&filter_by_event_names=true`,
    );
    expect(namesOf(only.body)).toEqual(['$current_url', '$ip', 'plan']);
  });

  it("applies search, is_numerical, is_feature_flag, exclusions and PostHog's paging", async () => {
    const search = await api().get<Page<Definition>>(`${base()}?search=SEAT`);
    expect(namesOf(search.body)).toEqual(['seats', 'seats_count']);
    const numerical = await api().get<Page<Definition>>(`${base()}?is_numerical=true`);
    expect(namesOf(numerical.body)).toEqual(['nothing', 'seats', 'seats_count']);
    const flags = await api().get<Page<Definition>>(`${base()}?is_feature_flag=true`);
    expect(namesOf(flags.body)).toEqual(['$feature/beta']);
    const core = await api().get<Page<Definition>>(
      `${base()}?exclude_core_properties=true&excluded_properties=${encodeURIComponent('["list"]')}&is_feature_flag=false`,
    );
    expect(namesOf(core.body)).toEqual([
      'created',
      'nothing',
      'plan',
      'seats',
      'seats_count',
      'sent_at_time',
      'sent_at_timestamp_ms',
      'signup_date',
      'trial',
      'trial_text',
    ]);
    const first = await api().get<Page<Definition>>(`${base()}?limit=2&offset=2`);
    expect(first.body.count).toBe(16);
    expect(namesOf(first.body)).toEqual(['$feature_flag_response', '$ip']);
    expect(first.body.next).toContain('offset=4');
    expect(first.body.previous).toContain('limit=2');
  });

  it('answers 400 naming the parameter for a bad filter', async () => {
    for (const [query, attr] of [
      ['type=cohort', 'type'],
      ['event_names=pageview', 'event_names'],
      ['is_numerical=yes', 'is_numerical'],
    ] as const) {
      const response = await api().get<{ type: string; attr: string }>(`${base()}?${query}`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ type: 'validation_error', attr });
    }
  });
});

describe('GET /api/projects/:id/property_definitions/:id/', () => {
  it('reads one definition by id, and 404s for an unknown or malformed id', async () => {
    const page = await api().get<Page<Definition>>(`${base()}?properties=seats`);
    const [seats] = page.body.results;
    const one = await api().get<Definition>(`${base()}${seats!.id}/`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(seats);
    expect((await api().get(`${base()}00000000-0000-4000-8000-000000000000/`)).status).toBe(404);
    expect((await api().get(`${base()}not-a-uuid/`)).status).toBe(404);
  });
});
