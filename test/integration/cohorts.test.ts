import { randomUUID } from 'node:crypto';
import { postJson, privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sharedLocalServer } from '../helpers/local-server';

interface Cohort {
  id: number;
  name: string | null;
  description: string;
  groups: unknown[];
  deleted: boolean;
  filters: { properties: unknown };
  is_calculating: boolean;
  created_by: { email: string } | null;
  created_at: string;
  last_calculation: string | null;
  errors_calculating: number;
  count: number | null;
  is_static: boolean;
}
interface Page<T> {
  count: number;
  results: T[];
}
interface PersonPage {
  results: { uuid: string; distinct_ids: string[]; name: string }[];
  next: string | null;
  previous: string | null;
}

const emailFilter = (value: string) => ({
  properties: {
    type: 'OR',
    values: [{ type: 'AND', values: [{ key: 'email', type: 'person', value, operator: 'icontains' }] }],
  },
});

/** The cohorts API through the local server. */
describe('cohorts API', () => {
  let server: LocalServer;
  let base: string;
  const run = randomUUID().slice(0, 8);
  const users = Array.from({ length: 5 }, (_, n) => `cohort-user-${run}-${n}`);
  const api = () => privateApi(server);

  /** A multipart body as a browser's FormData sends it. */
  const multipart = (method: string, path: string, fields: Record<string, string>, csv?: string) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    if (csv !== undefined) form.append('csv', new Blob([csv], { type: 'text/csv' }), 'people.csv');
    return fetch(`${server.credentials.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
      body: form,
    }).then(async (response) => ({
      status: response.status,
      body: (await response.json()) as Cohort & { attr?: string; detail?: string },
    }));
  };

  beforeAll(async () => {
    server = await sharedLocalServer('cohorts');
    base = `/api/projects/${server.credentials.projectId}/cohorts/`;
    const batch = users.map((id) => ({
      event: 'signed up',
      uuid: randomUUID(),
      distinct_id: id,
      properties: { $set: { email: `${id}@example.com` } },
    }));
    await postJson(server, '/batch/', { api_key: server.credentials.projectApiKey, batch });
    await eventually('every user of the run to have a person', async () => {
      const page = await privateApi(server).get<PersonPage>(
        `/api/projects/${server.credentials.projectId}/persons/?search=${run}&limit=100`,
      );
      return page.body.results.length === users.length ? true : undefined;
    });
  });

  afterAll(async () => {
    await server.stop();
  });

  it('creates a dynamic cohort (201, calculating) and lists it newest first with filters always present', async () => {
    const created = await api().post<Cohort>(base, { name: `Pros ${run}`, filters: emailFilter(run) });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: `Pros ${run}`,
      description: '',
      groups: [],
      deleted: false,
      is_calculating: true,
      count: null,
      last_calculation: null,
      errors_calculating: 0,
      is_static: false,
      filters: emailFilter(run),
      created_by: expect.objectContaining({ email: expect.any(String) }),
    });
    const legacy = await api().post<Cohort>(base, {
      name: `Legacy ${run}`,
      groups: [{ properties: [{ key: 'email', value: 'x@example.com', type: 'person' }] }],
    });
    expect(legacy.status).toBe(201);
    // Stored as PostHog normalises groups on create; filters converted on read.
    expect(legacy.body.groups).toEqual([
      {
        properties: [{ key: 'email', value: 'x@example.com', type: 'person' }],
        action_id: null,
        event_id: null,
        days: null,
        count: null,
        count_operator: null,
        start_date: null,
        end_date: null,
        label: null,
      },
    ]);
    expect(legacy.body.filters).toEqual({
      properties: {
        type: 'OR',
        values: [{ type: 'AND', values: [{ key: 'email', value: 'x@example.com', type: 'person' }] }],
      },
    });
    const list = await api().get<Page<Cohort>>(`${base}?search=${run}`);
    expect(list.body.results.map((cohort) => cohort.id)).toEqual([legacy.body.id, created.body.id]);
    expect(list.body.count).toBe(2);
  });

  it('soft deletes and undeletes with PATCH, and refuses DELETE with 405 and no body', async () => {
    const { body: cohort } = await api().post<Cohort>(base, {
      name: `Temp ${run}`,
      filters: emailFilter('temp'),
    });
    const deleted = await api().patch<Cohort>(`${base}${cohort.id}/`, { deleted: true });
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted).toBe(true);
    const listed = await api().get<Page<Cohort>>(`${base}?limit=1000`);
    expect(listed.body.results.some((other) => other.id === cohort.id)).toBe(false);
    expect((await api().get<Cohort>(`${base}${cohort.id}/`)).body.deleted).toBe(true);
    const restored = await api().patch<Cohort>(`${base}${cohort.id}/`, { deleted: false });
    expect(restored.body.deleted).toBe(false);
    const destroy = await api().delete(`${base}${cohort.id}/`);
    expect(destroy.status).toBe(405);
    expect(destroy.body).toBeUndefined();
    expect((await api().delete(`${base}999999/`)).status).toBe(404);
    // Read-only fields sent are ignored.
    const ignored = await api().patch<Cohort>(`${base}${cohort.id}/`, { count: 7, errors_calculating: 100 });
    expect(ignored.status).toBe(200);
    expect(ignored.body).toMatchObject({ count: null, errors_calculating: 0 });
  });

  it.each([
    [
      'filters that are not an object with properties',
      { filters: '[Slkasd=lkxcn]' },
      'filters',
      "Filters must be a dictionary with a 'properties' key.",
    ],
    [
      'an unknown filter type',
      { filters: { properties: { type: 'AND', values: [{ type: 'nope', key: 'a' }] } } },
      'filters',
      'Unknown filter type: "nope"',
    ],
    [
      'a person filter without a value',
      { filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'a', operator: 'exact' }] } } },
      'filters',
      'Missing required keys for person filter: value',
    ],
    [
      'an unknown key',
      {
        filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'a', value: 1, bogus: 1 }] } },
      },
      'filters',
      'Unknown key(s) for person filter: bogus',
    ],
    [
      'a behavioural filter without event_type',
      {
        filters: {
          properties: {
            type: 'AND',
            values: [
              {
                type: 'behavioral',
                key: '$pageview',
                value: 'performed_event',
                time_value: 30,
                time_interval: 'day',
              },
            ],
          },
        },
      },
      'filters',
      'Missing required keys for behavioral filter: event_type',
    ],
    [
      'an unsupported behavioural value',
      {
        filters: {
          properties: {
            type: 'AND',
            values: [
              {
                type: 'behavioral',
                key: '$pageview',
                value: 'performed_event_sequence',
                event_type: 'events',
              },
            ],
          },
        },
      },
      'filters',
      'Behavioral filter "performed_event_sequence" is not supported by Flock; supported: performed_event, performed_event_multiple.',
    ],
    [
      'a cohort id that does not exist',
      { filters: { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: 987654 }] } } },
      null,
      'Invalid Cohort ID in filter',
    ],
    [
      'a legacy group with nothing in it',
      { groups: [{ days: 3 }] },
      'groups',
      'Cohort group needs properties or action_id or event_id',
    ],
    [
      'a legacy group with an unknown key',
      { groups: [{ properties: [], color: 'red' }] },
      'groups',
      'Unknown key(s) in group: color',
    ],
  ])('answers 400 for %s', async (_name, body, attr, detail) => {
    const answer = await api().post(base, { name: 'bad', ...body });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail, attr });
  });

  it('refuses a loop of cohorts referencing each other', async () => {
    const { body: a } = await api().post<Cohort>(base, { name: `A ${run}`, filters: emailFilter('a') });
    const nested = { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: a.id }] } };
    const { body: b } = await api().post<Cohort>(base, { name: `B ${run}`, filters: nested });
    const loop = await api().patch(`${base}${a.id}/`, {
      filters: { properties: { type: 'AND', values: [{ type: 'cohort', key: 'id', value: b.id }] } },
    });
    expect(loop.status).toBe(400);
    expect(loop.body).toMatchObject({
      detail: 'Cohorts cannot reference other cohorts in a loop.',
      attr: null,
    });
  });

  it('fills a static cohort from CSV uploads (each header form), adding on later uploads', async () => {
    const created = await multipart(
      'POST',
      base,
      { name: `Static ${run}`, is_static: 'true' },
      `${users[0]}\n${users[1]}\nunknown-id\n`,
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ is_static: true, is_calculating: false, count: 2 });
    const path = `${base}${created.body.id}/`;
    // Multi-column: the distinct_id column is picked.
    const added = await multipart('PATCH', path, {}, `name,distinct_id\nx,${users[2]}\ny,${users[1]}\n`);
    expect(added.body.count).toBe(3);
    // Single column with a person_id header: person uuids.
    const persons = await api().get<PersonPage>(
      `/api/projects/${server.credentials.projectId}/persons/?distinct_id=${users[3]}`,
    );
    const uuid = persons.body.results[0]!.uuid;
    expect((await multipart('PATCH', path, {}, `person_id\n${uuid}\n`)).body.count).toBe(4);
    const members = await api().get<PersonPage>(`${path}persons/`);
    expect(members.status).toBe(200);
    expect(members.body.results.map((person) => person.distinct_ids[0]).sort()).toEqual(
      users.slice(0, 4).sort(),
    );
    expect(members.body.previous).toBeNull();
  });

  it.each([
    ['an empty file', '', 'CSV file is empty. Please upload a CSV file with at least one row of data.'],
    [
      'several columns without an id header',
      'a,b\n1,2\n',
      "Multi-column CSV must contain at least one column with a supported ID header: 'person_id', 'Person .id' (PostHog export format), 'distinct_id', 'distinct-id', or 'email'. Found columns: a, b",
    ],
    [
      'an id column without ids',
      'name,distinct_id\nx,\n',
      'CSV file contains no valid person IDs, distinct IDs, or email addresses. Please check your file and try again.',
    ],
  ])('answers 400 on csv for %s', async (_name, csv, detail) => {
    const answer = await multipart('POST', base, { name: 'bad csv', is_static: 'true' }, csv);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ type: 'validation_error', detail, attr: 'csv' });
  });

  it('pages cohort members by cursor, as JSON and as CSV', async () => {
    const created = await multipart(
      'POST',
      base,
      { name: `Paged ${run}`, is_static: 'true' },
      users.join('\n'),
    );
    const path = `${base}${created.body.id}/persons/`;
    const seen: string[] = [];
    let page = await api().get<PersonPage>(`${path}?limit=2`);
    seen.push(...page.body.results.map((person) => person.uuid));
    while (page.body.next) {
      page = await api().get<PersonPage>(page.body.next.slice(server.credentials.apiUrl.length));
      seen.push(...page.body.results.map((person) => person.uuid));
    }
    expect(new Set(seen).size).toBe(users.length);
    const csv = await fetch(`${server.credentials.apiUrl}${path}?format=csv`, {
      headers: { authorization: `Bearer ${server.credentials.personalApiKey}` },
    });
    expect(csv.headers.get('content-type')).toContain('text/csv');
    const lines = (await csv.text()).trim().split('\r\n');
    expect(lines).toHaveLength(users.length + 1);
    const header = lines[0]!.split(',');
    expect(header).toEqual([...header].sort());
    expect(header).toEqual(expect.arrayContaining(['created_at', 'distinct_ids.0', 'email', 'id', 'name']));
    expect(header).not.toContain('uuid');
    expect(lines.slice(1).some((line) => line.includes(`${users[0]}@example.com`))).toBe(true);
    expect((await api().get(`${path}?format=xml`)).status).toBe(400);
  });
});
