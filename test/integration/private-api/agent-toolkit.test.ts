import { PostHogAgentToolkit } from '@posthog/agent-toolkit/tools';
import { postJson } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { eventually, sharedLocalServer } from '../../helpers/local-server';
import { lakeEvent, putLakeEvents } from '../../helpers/query';

/** PostHog's own MCP tools (`@posthog/agent-toolkit`), run without an LLM against the local server. */
describe('PostHog agent toolkit', () => {
  let server: LocalServer;
  beforeAll(async () => {
    // An organization of its own: the toolkit lists the organization's projects, which other files add to.
    server = await sharedLocalServer('agent toolkit', { organization: true });
  });
  afterAll(async () => {
    await server.stop();
  });

  async function run(name: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const toolkit = new PostHogAgentToolkit({
      posthogApiToken: server.credentials.personalApiKey,
      posthogApiBaseUrl: server.credentials.apiUrl,
    });
    const tool = (await toolkit.getTools()).find((candidate) => candidate.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    const result = (await tool.handler(toolkit.getContext(), tool.schema.parse(params))) as {
      content: { text: string }[];
    };
    return JSON.parse(result.content[0]!.text);
  }

  it('lists organizations, reads the current one and lists its projects', async () => {
    const organizations = (await run('organizations-get')) as { id: string; name: string }[];
    expect(organizations).toHaveLength(1);
    const details = (await run('organization-details-get')) as { id: string };
    expect(details.id).toBe(organizations[0]!.id);
    const projects = (await run('projects-get')) as { id: number }[];
    expect(projects.map((project) => project.id)).toEqual([server.credentials.projectId]);
  });

  it('runs a HogQL query (query-run, a DataVisualizationNode) over the lake', async () => {
    await putLakeEvents(server, server.credentials.projectId, [
      lakeEvent('toolkit', 'a', '2024-03-04T10:00:00.000Z'),
      lakeEvent('toolkit', 'b', '2024-03-04T11:00:00.000Z'),
      lakeEvent('other', 'a', '2024-03-05T10:00:00.000Z'),
    ]);
    const results = await run('query-run', {
      query: {
        kind: 'DataVisualizationNode',
        source: {
          kind: 'HogQLQuery',
          query: 'select event, count() from events group by event order by event',
        },
      },
    });
    expect(results).toEqual([
      ['other', 1],
      ['toolkit', 2],
    ]);
  });

  it('runs a trends query (query-run, an InsightVizNode around a TrendsQuery) with totals, DAU and a breakdown', async () => {
    const events = [
      lakeEvent('trended', 'u1', '2024-04-01T10:00:00.000Z', { $browser: 'Chrome' }),
      lakeEvent('trended', 'u1', '2024-04-01T12:00:00.000Z', { $browser: 'Chrome' }),
      lakeEvent('trended', 'u2', '2024-04-01T23:30:00.000Z', { $browser: 'Firefox' }),
      lakeEvent('trended', 'u2', '2024-04-03T09:00:00.000Z', { $browser: 'Firefox' }),
      lakeEvent('trended', 'u3', '2024-04-03T10:00:00.000Z', { $browser: 'Chrome' }),
      lakeEvent('not trended', 'u1', '2024-04-02T10:00:00.000Z', { $browser: 'Chrome' }),
    ];
    await putLakeEvents(server, server.credentials.projectId, events);
    const days = ['2024-04-01', '2024-04-02', '2024-04-03'];
    const trended = events.filter((event) => event.event === 'trended');
    const onDay = (day: string, list = trended) => list.filter((event) => event.timestamp.startsWith(day));
    const distinct = (list: typeof events) => new Set(list.map((event) => event.distinct_id)).size;
    const query = (series: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
      query: {
        kind: 'InsightVizNode',
        source: {
          kind: 'TrendsQuery',
          series,
          interval: 'day',
          dateRange: { date_from: days[0], date_to: days[2] },
          ...extra,
        },
      },
    });

    // As the tool's schema builds it: `custom_name` required, its defaults (filterTestAccounts,
    // properties, trendsFilter's showLegend, compareFilter's compare) filled in.
    const totals = (await run(
      'query-run',
      query(
        [
          { kind: 'EventsNode', event: 'trended', custom_name: 'Views', math: 'total' },
          { kind: 'EventsNode', event: 'trended', custom_name: 'Viewers', math: 'dau' },
        ],
        { trendsFilter: { display: 'ActionsLineGraph' }, compareFilter: {} },
      ),
    )) as { label: string; days: string[]; data: number[]; count: number }[];
    expect(totals.map((series) => series.days)).toEqual([days, days]);
    expect(totals.map((series) => series.data)).toEqual([
      days.map((day) => onDay(day).length),
      days.map((day) => distinct(onDay(day))),
    ]);
    expect(totals[0]!.count).toBe(trended.length);

    const byBrowser = (await run(
      'query-run',
      query([{ kind: 'EventsNode', event: 'trended', custom_name: 'Views' }], {
        breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
      }),
    )) as { breakdown_value: string; data: number[] }[];
    const browsers = [...new Set(trended.map((event) => String(event.properties.$browser)))];
    expect(Object.fromEntries(byBrowser.map((series) => [series.breakdown_value, series.data]))).toEqual(
      Object.fromEntries(
        browsers.map((browser) => [
          browser,
          days.map((day) => onDay(day).filter((event) => event.properties.$browser === browser).length),
        ]),
      ),
    );
  });

  it("lists an event's properties and the person properties with their types (properties-list)", async () => {
    const sent = await postJson(server, '/batch/', {
      api_key: server.credentials.projectApiKey,
      batch: [
        {
          event: 'signed up',
          properties: { distinct_id: 'a', plan: 'pro', seats: 3, $set: { email: 'a@b.c' } },
        },
      ],
    });
    expect(sent.status).toBe(200);
    const properties = await eventually('the properties of "signed up"', async () => {
      const listed = (await run('properties-list', { type: 'event', eventName: 'signed up' })) as unknown[];
      return listed.length === 2 ? listed : undefined;
    });
    // PostHog's own properties ($ip) are left out unless asked for (`includePredefinedProperties`).
    expect(properties).toEqual([
      { name: 'plan', property_type: 'String' },
      { name: 'seats', property_type: 'Numeric' },
    ]);
    expect(await run('properties-list', { type: 'person' })).toEqual([
      { name: 'email', property_type: 'String' },
    ]);
    const all = (await run('properties-list', {
      type: 'event',
      eventName: 'signed up',
      includePredefinedProperties: true,
    })) as { name: string }[];
    expect(all.map((property) => property.name)).toEqual(['$ip', 'plan', 'seats']);
  });
});
