import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { toPersonItem } from '../../../functions/shared/db/persons';
import { keys } from '../../../functions/shared/db/keys';
import type { LocalServer } from '../../helpers/local-server';
import { documentClientOf, sharedLocalServer } from '../../helpers/local-server';
import { newProject } from '../../helpers/projects';
import { lakeEvent, postQuery, putLakeEvents } from '../../helpers/query';

interface EventsBody {
  columns: string[];
  types: string[];
  results: unknown[][];
  hasMore: boolean;
  limit: number;
  offset: number;
  hogql: string | null;
  nextCursor: string | null;
  is_cached: boolean;
  type?: string;
  code?: string;
  detail?: string;
  attr?: string | null;
}

const personUuid = '0190a1b2-0000-7000-8000-0000000000aa';

/**
 * PostHog's `EventsQuery` through the local server, over lake files of known events (the project's,
 * and another project's no query may see), and one person planted in the persons table.
 */
describe('EventsQuery', () => {
  let server: LocalServer;
  let projectId: number;
  const own = [
    lakeEvent('$pageview', 'u1', '2024-03-04T10:00:00.000Z', { $browser: 'Firefox', path: '/a' }),
    lakeEvent('$pageview', 'u1', '2024-03-04T15:00:00.000Z', { $browser: 'Chrome', path: '/b' }),
    lakeEvent('$pageview', 'u2', '2024-03-05T12:00:00.000Z', { $browser: 'Firefox', path: '/a' }),
    {
      ...lakeEvent('signup', 'u2', '2024-03-05T13:00:00.000Z', { plan: 'pro' }),
      elements_chain: 'button.primary:text="Sign up"nth-child="1"nth-of-type="1"',
    },
  ];

  beforeAll(async () => {
    server = await sharedLocalServer('events query');
    projectId = server.credentials.projectId;
    await putLakeEvents(server, projectId, own);
    // Another project of the deployment, whose lake holds an event of its own.
    await putLakeEvents(server, (await newProject(server, 'events query neighbour')).id, [
      lakeEvent('$pageview', 'x1', '2024-03-04T11:00:00.000Z', { $browser: 'Firefox' }),
    ]);
    const documents = documentClientOf(server);
    const table = server.endpoints.tables.main;
    await documents.send(
      new PutCommand({
        TableName: table,
        Item: toPersonItem(projectId, {
          uuid: personUuid,
          createdAt: '2024-03-01T00:00:00.000Z',
          isIdentified: true,
          distinctIds: ['u2'],
          version: 1,
          properties: { email: 'u2@example.com' },
          propertyStamps: {},
          unsetTimes: {},
        }),
      }),
    );
    await documents.send(
      new PutCommand({
        TableName: table,
        Item: {
          ...keys.personDistinctId(projectId, 'u2'),
          project: projectId,
          distinct_id: 'u2',
          person: personUuid,
        },
      }),
    );
    documents.destroy();
  });

  afterAll(async () => {
    await server?.stop();
  });

  const events = (query: Record<string, unknown>) =>
    postQuery<EventsBody>(server, { kind: 'EventsQuery', after: '2024-03-01', ...query });

  it('selects expressions, filters with where, event and properties, orders and pages with hasMore', async () => {
    const page = await events({
      select: [
        'event',
        'distinct_id',
        'properties.$browser',
        "concat(event, ' ', properties.path) as label",
        'timestamp',
      ],
      where: ["properties.path = '/a' or event = 'signup'"],
      orderBy: ['timestamp ASC'],
      limit: 2,
    });
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({
      columns: ['event', 'distinct_id', 'properties.$browser', 'label', 'timestamp'],
      types: ['String', 'String', 'Nullable(String)', 'String', "DateTime64(6, 'UTC')"],
      results: [
        ['$pageview', 'u1', 'Firefox', '$pageview /a', '2024-03-04T10:00:00Z'],
        ['$pageview', 'u2', 'Firefox', '$pageview /a', '2024-03-05T12:00:00Z'],
      ],
      hasMore: true,
      limit: 2,
      offset: 0,
      nextCursor: '2024-03-05T12:00:00Z',
      is_cached: false,
    });
    expect(page.body.hogql).toContain("WHERE (properties.path = '/a' or event = 'signup') AND timestamp <");
    const next = await events({
      select: ['event', 'distinct_id'],
      where: ["properties.path = '/a' or event = 'signup'"],
      orderBy: ['timestamp ASC'],
      limit: 2,
      offset: 2,
    });
    expect(next.body).toMatchObject({ results: [['signup', 'u2']], hasMore: false, offset: 2 });

    const filtered = await events({
      select: ['distinct_id'],
      event: '$pageview',
      properties: [{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }],
    });
    expect(filtered.body).toMatchObject({ results: [['u1']], hogql: null });
  });

  it('bounds by after and before, and by the last 24 hours when after is not given', async () => {
    const window = await events({
      select: ['count()'],
      after: '2024-03-04T12:00:00Z',
      before: '2024-03-05T12:30:00Z',
    });
    expect(window.body.results).toEqual([[2]]);
    const recent = await postQuery<EventsBody>(server, { kind: 'EventsQuery', select: ['count()'] });
    expect(recent.body.results).toEqual([[0]]);
    const all = await postQuery<EventsBody>(server, {
      kind: 'EventsQuery',
      select: ['count()'],
      after: 'all',
    });
    expect(all.body.results).toEqual([[4]]);
  });

  it('groups by the columns without an aggregation and filters on aggregations in HAVING', async () => {
    const grouped = await events({
      select: ['event', 'count()'],
      where: ['count() > 1'],
    });
    expect(grouped.body).toMatchObject({
      columns: ['event', 'count()'],
      results: [['$pageview', 3]],
      hasMore: false,
    });
  });

  it('answers * as the event object and person as the person of the distinct id', async () => {
    const response = await events({
      select: ['*', 'person -- Person'],
      orderBy: ['timestamp DESC'],
      limit: 1,
    });
    expect(response.status).toBe(200);
    expect(response.body.columns).toEqual(['*', 'person -- Person']);
    expect(response.body.types[0]).toMatch(/^Tuple\(String, String, String, DateTime64\(6, 'UTC'\), Int64, /);
    const [star, person] = response.body.results[0] as [Record<string, unknown>, Record<string, unknown>];
    expect(star).toMatchObject({
      uuid: own[3]!.uuid,
      event: 'signup',
      properties: { plan: 'pro' },
      timestamp: '2024-03-05T13:00:00Z',
      team_id: projectId,
      distinct_id: 'u2',
      person_mode: 'full',
      elements: [expect.objectContaining({ tag_name: 'button', text: 'Sign up' })],
    });
    expect(person).toEqual({
      uuid: personUuid,
      created_at: '2024-03-01T00:00:00.000Z',
      properties: { email: 'u2@example.com' },
      distinct_id: 'u2',
    });
    const unknown = await events({
      select: ['person'],
      event: '$pageview',
      orderBy: ['timestamp ASC'],
      limit: 1,
    });
    expect(unknown.body.results).toEqual([[{ distinct_id: 'u1' }]]);
  });

  it('runs inside a DataTableNode and never sees another project', async () => {
    const response = await postQuery<EventsBody>(server, {
      kind: 'DataTableNode',
      source: {
        kind: 'EventsQuery',
        select: ['distinct_id'],
        after: 'all',
        where: ["distinct_id like 'x%'"],
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual([]);
  });

  it('refuses what it does not run, and isolation attacks, with a 400 naming them', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ select: ["read_csv('/etc/passwd')"] }, 'validation_error'],
      [{ select: ['event'], where: ['1) or (1'] }, 'validation_error'],
      [{ select: ['event from events; select 1'] }, 'validation_error'],
      [{ select: ['event'], actionId: 3 }, 'validation_error'],
      [{ select: ['event'], after: 'yesterday-ish' }, 'validation_error'],
      [{ select: ['event'], orderBy: ['timestamp DESC; drop table events'] }, 'validation_error'],
      [{ select: ['event'], where: ['project_id = 1'] }, 'validation_error'],
    ];
    for (const [query, type] of cases) {
      const response = await events(query);
      expect({ query, status: response.status, type: response.body.type }).toEqual({
        query,
        status: 400,
        type,
      });
    }
    const attr = await events({ select: ['event'], actionId: 3 });
    expect(attr.body.attr).toBe('query');
  });
});
