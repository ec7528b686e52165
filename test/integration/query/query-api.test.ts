import { privateApi } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { sharedLocalServer } from '../../helpers/local-server';
import { newProject } from '../../helpers/projects';
import { hogql, lakeEvent, postQuery, putLakeEvents } from '../../helpers/query';

interface QueryBody {
  columns: string[];
  types: [string, string][];
  results: unknown[][];
  hasMore: boolean | null;
  limit: number | null;
  offset: number | null;
  hogql: string;
  is_cached: boolean;
  last_refresh: string;
  timezone: string;
  cache_key: string;
  type?: string;
  code?: string;
  detail?: string;
  attr?: string | null;
}

/**
 * `POST /api/projects/:id/query/` through the local server, over lake files of known events: the
 * project's own, and another project's that no query of this one may count.
 */
describe('the query endpoint', () => {
  let server: LocalServer;
  let projectId: number;
  const own = [
    lakeEvent('$pageview', 'u1', '2024-03-04T10:00:00.000Z', { $browser: 'Firefox' }),
    lakeEvent('$pageview', 'u1', '2024-03-04T15:00:00.000Z', { $browser: 'Chrome' }),
    lakeEvent('$pageview', 'u2', '2024-03-05T12:00:00.000Z', { $browser: 'Firefox' }),
    lakeEvent('signup', 'u2', '2024-03-05T13:00:00.000Z', { plan: 'pro' }),
  ];
  /** Another project of the deployment, whose lake holds events of its own. */
  let otherProjectId: number;
  const otherProject = () => otherProjectId;
  const others = [
    lakeEvent('$pageview', 'x1', '2024-03-04T11:00:00.000Z', { $browser: 'Firefox' }),
    lakeEvent('signup', 'x2', '2024-03-05T12:00:00.000Z', { plan: 'pro' }),
    lakeEvent('signup', 'x3', '2024-03-05T12:30:00.000Z', { plan: 'pro' }),
  ];

  beforeAll(async () => {
    server = await sharedLocalServer('query API', { organization: true });
    projectId = server.credentials.projectId;
    otherProjectId = (await newProject(server, 'query API neighbour')).id;
    // A new project becomes its creator's current one: @current is this file's project again.
    await privateApi(server).patch('/api/users/@me/', { set_current_team: projectId });
    await putLakeEvents(server, projectId, own);
    await putLakeEvents(server, otherProject(), others);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it("counts the project's events by event, with PostHog's response fields", async () => {
    const response = await postQuery<QueryBody>(
      server,
      hogql('select event, count() as c from events group by event order by event'),
    );
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      columns: ['event', 'c'],
      types: [
        ['event', 'String'],
        ['c', 'Int64'],
      ],
      results: [
        ['$pageview', 3],
        ['signup', 1],
      ],
      hasMore: false,
      limit: 100,
      offset: 0,
      hogql: 'select event, count() as c from events group by event order by event',
      is_cached: false,
      timezone: 'UTC',
    });
    expect(response.body.cache_key).toMatch(new RegExp(`^cache_${projectId}_[0-9a-f]{64}$`));
    expect(Date.parse(response.body.last_refresh)).not.toBeNaN();
  });

  it('answers under /api/environments/, for @current, with and without the trailing slash', async () => {
    const query = hogql('select count() from events');
    for (const path of [
      `/api/environments/${projectId}/query/`,
      `/api/environments/${projectId}/query`,
      '/api/projects/@current/query/',
      '/api/environments/@current/query',
    ]) {
      const response = await postQuery<QueryBody>(server, query, {}, path);
      expect({ path, status: response.status, results: response.body.results }).toEqual({
        path,
        status: 200,
        results: [[4]],
      });
    }
  });

  it("runs a display node's source and answers the source's response", async () => {
    const source = hogql("select distinct_id from events where event = 'signup'");
    for (const kind of ['DataVisualizationNode', 'DataTableNode', 'InsightVizNode']) {
      const response = await postQuery<QueryBody>(server, { kind, source });
      expect({ kind, status: response.status, results: response.body.results }).toEqual({
        kind,
        status: 200,
        results: [['u2']],
      });
    }
  });

  it('refuses invalid HogQL and kinds it does not run with a 400 naming them', async () => {
    const syntax = await postQuery<QueryBody>(server, hogql('select from where'));
    expect(syntax.status).toBe(400);
    expect(syntax.body).toMatchObject({ type: 'validation_error', code: 'hogql_syntax_error' });
    const unknownField = await postQuery<QueryBody>(server, hogql('select user_id from events'));
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.detail).toContain('user_id');
    const kind = await postQuery<QueryBody>(server, { kind: 'Tomato Soup' });
    expect(kind.status).toBe(400);
    expect(kind.body).toMatchObject({ code: 'invalid_input', detail: 'Unsupported query kind: Tomato Soup' });
    const trends = await postQuery<QueryBody>(server, { kind: 'TrendsQuery', series: [] });
    expect(trends.status).toBe(400);
    expect(trends.body).toMatchObject({ type: 'validation_error', attr: 'series' });
    const missing = await privateApi(server).post<QueryBody>(`/api/projects/${projectId}/query/`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ type: 'validation_error', attr: 'query' });
    const noText = await postQuery<QueryBody>(server, { kind: 'HogQLQuery' });
    expect(noText.status).toBe(400);
    expect(noText.body.attr).toBe('query__query');
  });

  it("answers a TrendsQuery and a FunnelsQuery from the project's lake files only", async () => {
    const dateRange = { date_from: '2024-03-03', date_to: '2024-03-06' };
    const trend = await postQuery<{ results: { data: number[]; days: string[]; count: number }[] }>(server, {
      kind: 'TrendsQuery',
      series: [{ kind: 'EventsNode', event: '$pageview', math: 'total' }],
      interval: 'day',
      dateRange,
    });
    expect(trend.status).toBe(200);
    // The other project's pageview of 4 March is not counted.
    expect(trend.body.results.map(({ days, data, count }) => ({ days, data, count }))).toEqual([
      { days: ['2024-03-03', '2024-03-04', '2024-03-05', '2024-03-06'], data: [0, 2, 1, 0], count: 3 },
    ]);
    const funnel = await postQuery<{ results: { count: number }[] }>(server, {
      kind: 'FunnelsQuery',
      series: [
        { kind: 'EventsNode', event: '$pageview' },
        { kind: 'EventsNode', event: 'signup' },
      ],
      dateRange,
    });
    expect(funnel.status).toBe(200);
    // u1 and u2 viewed a page; u2 signed up an hour later (x2 and x3 are the other project's).
    expect(funnel.body.results.map((step) => step.count)).toEqual([2, 1]);
  });

  it("answers a HogQL query bounded on timestamp over its dates' partitions as over every one, in the project's timezone", async () => {
    const created = await privateApi(server).post<{ id: number }>('/api/projects/', {
      name: 'Los Angeles',
      timezone: 'America/Los_Angeles',
    });
    expect(created.status).toBe(201);
    const la = created.body.id;
    // 2024-03-05 in Los Angeles (UTC-8 until 10 March) is 08:00 UTC on the 5th to 08:00 UTC on the 6th.
    const times = [
      '2024-02-20T12:00:00.000Z',
      '2024-03-05T07:59:59.000Z',
      '2024-03-05T08:00:00.000Z',
      '2024-03-05T20:00:00.000Z',
      '2024-03-06T07:59:59.000Z',
      '2024-03-06T08:00:00.000Z',
      '2024-03-20T12:00:00.000Z',
    ];
    await putLakeEvents(
      server,
      la,
      times.map((time, n) => lakeEvent('$pageview', `la${n}`, time)),
    );
    const inDay = times.filter(
      (time) => time >= '2024-03-05T08:00:00.000Z' && time < '2024-03-06T08:00:00.000Z',
    ).length;
    const bounds = "timestamp >= '2024-03-05' and timestamp < '2024-03-06'";
    const path = `/api/projects/${la}/query/`;
    // Pruned: the bounds name the partitions. Full: a sub-query reads every partition.
    const pruned = await postQuery<QueryBody>(
      server,
      hogql(`select count() from events where ${bounds}`),
      {},
      path,
    );
    const full = await postQuery<QueryBody>(
      server,
      hogql(`select count() from (select timestamp from events) where ${bounds}`),
      {},
      path,
    );
    expect([pruned.status, full.status]).toEqual([200, 200]);
    expect(pruned.body.results).toEqual([[inDay]]);
    expect(full.body.results).toEqual([[inDay]]);
  });

  it('needs query:read', async () => {
    const created = await privateApi(server).post<{ value: string }>('/api/personal_api_keys/', {
      label: 'no query',
      scopes: ['cohort:read'],
    });
    expect(created.status).toBe(201);
    const response = await privateApi(server, created.body.value).post<QueryBody>(
      `/api/projects/${projectId}/query/`,
      { query: hogql('select 1') },
    );
    expect(response.status).toBe(403);
    expect(response.body.detail).toBe("API key missing required scope 'query:read'");
  });

  describe('isolation', () => {
    const attacks: [string, string][] = [
      ['read_csv', "select * from read_csv('/etc/passwd')"],
      ['read_csv in a select', "select read_csv('/etc/passwd') from events"],
      ['file', "select file('/etc/passwd')"],
      ['a file table', "select * from file('/etc/passwd', 'CSV')"],
      ['s3', "select * from s3('s3://flock-lake/events/*.parquet')"],
      ['read_parquet', "select count() from read_parquet('/tmp/**/*.parquet')"],
      ['url', "select * from url('http://127.0.0.1:1/')"],
      ['system tables', 'select * from system.tables'],
      ['system functions', 'select name from system.functions'],
      ['duckdb settings', 'select * from duckdb_settings()'],
      ['getenv', "select getenv('AWS_SECRET_ACCESS_KEY')"],
      ['current_setting', "select current_setting('allowed_directories')"],
      ['another project in WHERE', `select count() from events where project_id = ${1}`],
      ['team_id', 'select count() from events where team_id = 1'],
      ['a block comment', "select /* */ 1 from events; select * from read_csv('/etc/passwd')"],
      ['a quoted table', 'select * from "read_csv(\'/etc/passwd\')"'],
      ['a backquoted table', "select * from `events; select * from read_csv('/etc/passwd')`"],
      ['a set statement', 'set enable_external_access = true'],
      ['an attach', "attach '/tmp/x.db'"],
    ];
    it.each(attacks)('refuses %s with a 400', async (_name, text) => {
      const response = await postQuery<QueryBody>(server, hogql(text));
      expect(response.status).toBe(400);
      expect(response.body.type).toBe('validation_error');
    });

    it('reads a comment as a comment: what it hides is never run', async () => {
      const response = await postQuery<QueryBody>(
        server,
        hogql("select 1 -- ; select * from read_csv('/etc/passwd')\n from events"),
      );
      expect(response.status).toBe(200);
      expect(response.body.results).toEqual([[1], [1], [1], [1]]);
    });

    it("never counts another project's events, whatever the WHERE or sub-query names", async () => {
      const counts = async (text: string) => (await postQuery<QueryBody>(server, hogql(text))).body.results;
      expect(await counts('select count() from events')).toEqual([[4]]);
      expect(await counts("select count() from events where distinct_id in ('x1', 'x2', 'x3')")).toEqual([
        [0],
      ]);
      expect(
        await counts("select count() from (select * from events where distinct_id like 'x%') as e"),
      ).toEqual([[0]]);
      expect(
        await counts(
          "select count() from events where event in (select event from events where distinct_id = 'x2')",
        ),
      ).toEqual([[0]]);
      // The string that names the other project's partition is a literal, never a path.
      expect(
        await counts(`select count() from events where properties.$browser = 'project_id=${otherProject()}'`),
      ).toEqual([[0]]);
    });

    it("answers an empty result for a project whose lake holds nothing (never another's)", async () => {
      const created = await privateApi(server).post<{ id: number }>('/api/projects/', { name: 'empty' });
      expect(created.status).toBe(201);
      const response = await postQuery<QueryBody>(
        server,
        hogql('select count(), uniq(distinct_id) from events'),
        {},
        `/api/projects/${created.body.id}/query/`,
      );
      expect(response.status).toBe(200);
      expect(response.body.results).toEqual([[0, 0]]);
    });
  });
});
