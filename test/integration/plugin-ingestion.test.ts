import { setTimeout as sleep } from 'node:timers/promises';
import { privateApi } from '../helpers/api';
import type { LocalServer } from '../helpers/local-server';
import { eventually, sharedLocalServer } from '../helpers/local-server';
import type { Page } from '../helpers/ingestion-plugins';
import { ingestionPlugins, plugins } from '../helpers/ingestion-plugins';
import { newProject } from '../helpers/projects';

interface LogEntry {
  id: string;
  team_id: number;
  plugin_id: number;
  plugin_config_id: number;
  timestamp: string;
  source: string;
  type: string;
  message: string;
  instance_id: string;
}

/**
 * Plugins running in the consumer of the worker's shared local server: events go in by capture, come
 * out by the events API. Downsampling, whose drops only the server's output shows, is
 * plugin-downsampling.test.ts's, on a server of its own.
 */
describe('plugins in ingestion', () => {
  let server: LocalServer;
  const api = () => privateApi(server);

  const { capture, enable, eventsNamed, stored } = ingestionPlugins(() => server);

  beforeAll(async () => {
    server = await sharedLocalServer('plugin-ingestion');
  });

  afterAll(async () => {
    await server.stop();
  });

  it('a Property Filter removes properties, nested ones too, from stored events', async () => {
    const project = await newProject(server, 'Filtered');
    await enable(project.configs, plugins.propertyFilter, { properties: 'secret,card.number' });
    await capture(project.token, [
      {
        event: 'paid',
        distinct_id: 'payer',
        properties: { secret: 's3cr3t', card: { number: '4242', brand: 'visa' }, amount: 5 },
      },
    ]);
    const [event] = await stored(project.id, 'paid', 1);
    expect(event!.properties).toMatchObject({ card: { brand: 'visa' }, amount: 5 });
    expect(event!.properties).not.toHaveProperty('secret');
    expect(event!.properties).not.toHaveProperty(['card', 'number']);
  });

  it('GeoIP locates the sender with the bundled database: 127.0.0.1 stands in for Sydney', async () => {
    const project = await newProject(server, 'Located');
    await enable(project.configs, plugins.geoip);
    // No $ip property: capture records the request's source address, 127.0.0.1 here.
    await capture(project.token, [{ event: 'visited', distinct_id: 'visitor' }]);
    const [event] = await stored(project.id, 'visited', 1);
    expect(event!.properties).toMatchObject({
      $ip: '127.0.0.1',
      $geoip_city_name: 'Sydney',
      $geoip_country_name: 'Australia',
      $geoip_country_code: 'AU',
      $geoip_continent_code: 'OC',
      $geoip_subdivision_1_name: 'New South Wales',
      $geoip_time_zone: 'Australia/Sydney',
    });
    expect(event!.properties.$set).toMatchObject({ $geoip_city_name: 'Sydney' });
  });

  it('runs enabled configs in order and marks the event with $plugins_succeeded', async () => {
    const project = await newProject(server, 'Marked');
    const parser = await enable(project.configs, plugins.timestampParser, {}, 2);
    await api().post(project.configs, {
      plugin: plugins.downsampling,
      enabled: false,
      order: 1,
      config: { percentage: 0 },
    });
    await capture(project.token, [
      { event: 'dated', distinct_id: 'd', timestamp: '2024-03-01T10:20:00.000Z', properties: { kept: true } },
    ]);
    const [event] = await stored(project.id, 'dated', 1);
    expect(event!.properties).toMatchObject({
      kept: true,
      day_of_the_week: 'Friday',
      year: 2024,
      hour: 10,
      minute: 20,
      $plugins_succeeded: [`Timestamp Parser (${parser})`],
      $plugins_failed: [],
      $plugins_deferred: [],
    });
  });

  it('a throwing plugin keeps the event, records the config error and a PLUGIN/ERROR log entry', async () => {
    const project = await newProject(server, 'Failing');
    // `a.b` walks into `a`, a string in these events: the plugin's `in` operator throws a TypeError.
    const config = await enable(project.configs, plugins.propertyFilter, { properties: 'a.b' });
    const configPath = `${project.configs}${config}/`;
    await capture(
      project.token,
      ['one', 'two', 'three'].map((n) => ({ event: 'breaks filter', distinct_id: n, properties: { a: n } })),
    );
    const events = await stored(project.id, 'breaks filter', 3);
    for (const event of events) {
      expect(event.properties).toMatchObject({
        $plugins_succeeded: [],
        $plugins_failed: [`Property Filter (${config})`],
      });
    }
    expect(events.map((event) => event.properties.a).sort()).toEqual(['one', 'three', 'two']);

    const withError = await eventually('the failing plugin to record its error', async () => {
      const read = await api().get<{ error: Record<string, unknown> | null }>(configPath);
      return read.body.error ?? undefined;
    });
    expect(withError).toMatchObject({
      name: 'TypeError',
      message: expect.stringContaining("'in' operator"),
      time: expect.any(String),
      stack: expect.stringContaining('TypeError'),
      event: { event: 'breaks filter', team_id: project.id },
    });

    const logs = `${configPath}logs/`;
    // The 3 errors, newest first, after the config's own load entry (SYSTEM/INFO, the oldest).
    const all = await eventually('the 3 error entries and the load entry of the plugin', async () => {
      const page = await api().get<Page<LogEntry>>(logs);
      return page.body.count === 4 ? page.body : undefined;
    });
    const errors = all.results.slice(0, 3);
    for (const entry of errors) {
      expect(entry).toMatchObject({
        team_id: project.id,
        plugin_id: plugins.propertyFilter,
        plugin_config_id: config,
        source: 'PLUGIN',
        type: 'ERROR',
        message: expect.stringContaining("'in' operator"),
      });
    }
    expect(all.results[3]).toMatchObject({
      source: 'SYSTEM',
      type: 'INFO',
      message: expect.stringMatching(/^Plugin loaded \(instance ID [0-9a-f-]{36}\)\.$/),
    });
    const times = all.results.map((entry) => entry.timestamp);
    expect(times).toEqual([...times].sort().reverse());

    const page = await api().get<Page<LogEntry>>(`${logs}?limit=1&offset=1`);
    expect(page.body.count).toBe(4);
    expect(page.body.results).toEqual([all.results[1]]);
    expect(page.body.next).toMatch(/limit=1&offset=2/);
    expect(page.body.previous).toMatch(/limit=1$/);
    const errorsOnly = await api().get<Page<LogEntry>>(`${logs}?type_filter=ERROR`);
    expect(errorsOnly.body.results).toEqual(errors);
    expect((await api().get<Page<LogEntry>>(`${logs}?type_filter=WARN`)).body.count).toBe(0);
    expect(
      (await api().get<Page<LogEntry>>(`${logs}?type_filter=ERROR&search=OPERATOR%20TO%20SEARCH`)).body.count,
    ).toBe(3);
    expect((await api().get<Page<LogEntry>>(`${logs}?search=nothing%20like%20it`)).body.count).toBe(0);
    const newest = all.results[0]!.timestamp;
    expect((await api().get<Page<LogEntry>>(`${logs}?after=${newest}`)).body.count).toBe(0);
    expect((await api().get<Page<LogEntry>>(`${logs}?before=2000-01-01T00:00:00Z`)).body.count).toBe(0);
    expect((await api().get<Page<LogEntry>>(`${logs}?after=2000-01-01T00:00:00Z`)).body.count).toBe(4);
  });

  it('the First Time Event Tracker marks first events per project and per user, from its storage', async () => {
    const project = await newProject(server, 'First times');
    await enable(project.configs, plugins.firstTime, { events: 'signed up' });
    const send = async (distinctId: string, n: number) => {
      await capture(project.token, [{ event: 'signed up', distinct_id: distinctId, properties: { n } }]);
      await stored(project.id, 'signed up', n);
    };
    await send('u1', 1);
    await send('u1', 2);
    await send('u2', 3);
    const byN = new Map(
      (await eventsNamed(project.id, 'signed up')).map((event) => [event.properties.n, event]),
    );
    const flags = (n: number) => {
      const { is_first_event_ever, is_first_event_for_user } = byN.get(n)!.properties;
      return { is_first_event_ever, is_first_event_for_user };
    };
    expect(flags(1)).toEqual({ is_first_event_ever: true, is_first_event_for_user: true });
    expect(flags(2)).toEqual({ is_first_event_ever: false, is_first_event_for_user: false });
    expect(flags(3)).toEqual({ is_first_event_ever: false, is_first_event_for_user: true });
  });

  it('the Unduplicator stores a resent event once, whatever uuid the client gave it', async () => {
    const project = await newProject(server, 'Unduplicated');
    await enable(project.configs, plugins.unduplicator, { dedupMode: 'Event and Timestamp' });
    const event = { event: 'resent', distinct_id: 'r', timestamp: '2024-05-01T08:00:00.000Z' };
    await capture(project.token, [event]);
    await capture(project.token, [event, { ...event, event: 'resent marker' }]);
    await stored(project.id, 'resent marker', 1);
    await sleep(500);
    expect(await eventsNamed(project.id, 'resent')).toHaveLength(1);
  });
});
