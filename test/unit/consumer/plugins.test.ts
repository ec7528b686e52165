import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { ingestRecords, newConsumerMemory } from '../../../functions/consumer/ingest';
import type { EventItem } from '../../../functions/shared/db/events';
import { fromEventItem } from '../../../functions/shared/db/events';
import { getPluginConfig } from '../../../functions/shared/db/plugin-configs';
import { storePluginConfig } from '../../helpers/plugin-configs';
import { readPluginLogs } from '../../../functions/shared/db/plugin-logs';
import type { TestEvent } from '../../helpers/capture-records';
import { captureRecord } from '../../helpers/capture-records';
import { consumerTables as tables, tablesWithProject } from '../../helpers/consumer-tables';
import type { DynaliteTables } from '../../helpers/dynalite-tables';

const projectId = 7;
const at = new Date('2024-03-01T12:00:05.000Z');
let fake: DynaliteTables;

beforeEach(async () => {
  fake = await tablesWithProject(projectId);
});

afterEach(async () => {
  await fake.stop();
});

const record = (messageId: string, events: TestEvent[]): SQSRecord =>
  captureRecord(projectId, messageId, events);

/** A fresh container each time, as a redelivery may land on any. */
const ingest = (records: SQSRecord[]) => ingestRecords(records, tables, newConsumerMemory(), at);

async function storedEvents() {
  const items = await fake.items('events');
  return [...items.values()]
    .filter((item) => item.SK === 'E')
    .map((item) => fromEventItem(item as unknown as EventItem))
    .sort((a, b) => Number(a.properties.n) - Number(b.properties.n));
}

const configure = (plugin: number, order: number, config: Record<string, string>) =>
  storePluginConfig('main', projectId, { plugin, enabled: true, order, config, error: null });

describe('plugins in the consumer', () => {
  it('stores what a redelivered batch stored the first time, stateful plugins included', async () => {
    await configure(9, 1, { events: 'signed up' });
    const records = [
      record('m-1', [
        { event: 'signed up', distinctId: 'u1', properties: { n: 1 } },
        { event: 'signed up', distinctId: 'u1', properties: { n: 2 } },
      ]),
    ];
    expect((await ingest(records)).batchItemFailures).toEqual([]);
    const first = await storedEvents();
    expect(first.map((event) => event.properties.is_first_event_for_user)).toEqual([true, false]);

    expect((await ingest(records)).batchItemFailures).toEqual([]);
    expect(await storedEvents()).toEqual(first);
  });

  it('drops what a plugin drops, acknowledging its message', async () => {
    await configure(3, 1, { percentage: '0' });
    const response = await ingest([record('m-1', [{ event: 'gone', distinctId: 'x' }])]);
    expect(response.batchItemFailures).toEqual([]);
    expect(await storedEvents()).toEqual([]);
  });

  it('records the last failure of a batch as the config error, a log entry per event, the same on replay', async () => {
    const { record: config } = await configure(2, 1, { properties: 'a.b' });
    const records = [
      record('m-1', [
        { event: 'e', distinctId: 'one', properties: { a: 'x' } },
        { event: 'e', distinctId: 'two', properties: { a: 'y' } },
      ]),
    ];
    await ingest(records);
    await ingest(records);
    expect(await storedEvents()).toHaveLength(2);
    const stored = await getPluginConfig('main', projectId, config.id);
    expect(stored?.error).toMatchObject({
      name: 'TypeError',
      event: { distinct_id: 'two', properties: { a: 'y' } },
    });
    const logs = await readPluginLogs(
      'main',
      projectId,
      config.id,
      { types: [] },
      { offset: 0, limit: 10 },
      at,
    );
    expect(logs.count).toBe(2);
    expect(logs.entries.map((entry) => [entry.source, entry.type, entry.timestamp])).toEqual([
      ['PLUGIN', 'ERROR', '2024-03-01T12:00:01.000Z'],
      ['PLUGIN', 'ERROR', '2024-03-01T12:00:01.000Z'],
    ]);
  });

  it('reports a config that fails its setup once, runs the others, and leaves its events alone', async () => {
    const { record: broken } = await configure(3, 1, { percentage: 'lots' });
    await configure(6, 2, {});
    await ingest([record('m-1', [{ event: 'kept', distinctId: 'k' }])]);
    const [event] = await storedEvents();
    expect(event?.properties).toMatchObject({ day_of_the_week: 'Friday', $plugins_failed: [] });
    const stored = await getPluginConfig('main', projectId, broken.id);
    expect(stored?.error).toMatchObject({ message: 'Percentage must be a number between 0 and 100.' });
    const logs = await readPluginLogs(
      'main',
      projectId,
      broken.id,
      { types: ['ERROR'] },
      { offset: 0, limit: 10 },
      at,
    );
    expect(logs.entries.map((entry) => [entry.source, entry.message])).toEqual([
      ['SYSTEM', 'Percentage must be a number between 0 and 100.'],
      [
        'SYSTEM',
        expect.stringMatching(/^setupPlugin failed \(instance ID [0-9a-f-]{36}\)\. Retrying in 5 s\.$/),
      ],
    ]);
  });

  it("retries a failed setup after 5, 10, 20, 40 and 80 s with PostHog's entries, then gives up", async () => {
    const { record: broken } = await configure(3, 1, { percentage: 'lots' });
    const memory = newConsumerMemory();
    // Batches at 0 s, 4 s (not due), then each time a retry is due, and once more after giving up.
    const offsets = [0, 4, 5, 15, 35, 75, 155, 400];
    for (const [n, seconds] of offsets.entries()) {
      const time = new Date(at.getTime() + seconds * 1000);
      await ingestRecords([record(`m-${n}`, [{ event: 'kept', distinctId: 'k' }])], tables, memory, time);
    }
    const logs = await readPluginLogs(
      'main',
      projectId,
      broken.id,
      { types: [] },
      { offset: 0, limit: 100 },
      new Date(at.getTime() + 500_000),
    );
    const lines = logs.entries
      .map((entry) => `${entry.type} ${entry.message.replace(/[0-9a-f-]{36}/, 'ID')}`)
      .reverse();
    const failure = 'ERROR Percentage must be a number between 0 and 100.';
    expect(lines).toEqual([
      'ERROR setupPlugin failed (instance ID ID). Retrying in 5 s.',
      failure,
      'ERROR setupPlugin failed (instance ID ID). Retrying in 10 s.',
      failure,
      'ERROR setupPlugin failed (instance ID ID). Retrying in 20 s.',
      failure,
      'ERROR setupPlugin failed (instance ID ID). Retrying in 40 s.',
      failure,
      'ERROR setupPlugin failed (instance ID ID). Retrying in 80 s.',
      failure,
      'ERROR Plugin failed to load (instance ID ID). Disabling it due to too many retries – tried to load it 6 times before giving up.',
    ]);
  });

  it('retries a message whose project configs cannot be read, and only that one', async () => {
    fake.mock
      .on(QueryCommand, { ExpressionAttributeValues: { ':prefix': 'CONFIG#' } })
      .rejects(Object.assign(new Error('down'), { name: 'InternalServerError' }));
    const response = await ingest([record('m-1', [{ event: 'later', distinctId: 'l' }])]);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    expect(await storedEvents()).toEqual([]);
  });

  it('runs the GeoIP plugin on the bundled database: $geoip_* properties, person $set and $set_once', async () => {
    await configure(1, 1, {});
    const response = await ingest([
      record('m-1', [
        { event: 'located', distinctId: 'g', properties: { n: 1, $ip: '13.106.122.3' } },
        // The message's own address (TEST-NET, in no database) leaves the event as it was.
        { event: 'unlocated', distinctId: 'g', properties: { n: 2 } },
      ]),
    ]);
    expect(response.batchItemFailures).toEqual([]);
    const [located, unlocated] = await storedEvents();
    expect(located!.properties).toMatchObject({
      $geoip_city_name: 'Sydney',
      $geoip_country_name: 'Australia',
      $geoip_country_code: 'AU',
      $geoip_continent_name: 'Oceania',
      $geoip_continent_code: 'OC',
      $geoip_subdivision_1_name: 'New South Wales',
      $geoip_postal_code: '2000',
      $geoip_latitude: -33.8672,
      $geoip_longitude: 151.1997,
      $geoip_time_zone: 'Australia/Sydney',
      $plugins_succeeded: [expect.stringMatching(/^GeoIP \(\d+\)$/)],
    });
    expect(located!.properties.$set).toMatchObject({
      $geoip_city_name: 'Sydney',
      $geoip_city_confidence: null,
    });
    expect(located!.properties.$set_once).toMatchObject({ $initial_geoip_country_code: 'AU' });
    expect(Object.keys(unlocated!.properties).filter((key) => key.includes('geoip'))).toEqual([]);
  });
});
