import { BatchGetItemCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import 'aws-sdk-client-mock-jest';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { ingestRecords, newConsumerMemory } from '../../../functions/consumer/ingest';
import { personUuidFor } from '../../../functions/shared/domain/persons';
import type { CaptureMessage } from '../../../functions/shared/queue/message';
import { DynaliteTables } from '../../helpers/dynalite-tables';

const defaultTables = { eventsTable: 'events', singleTable: 'main' };
/** The tables a test ingests into and reads: the crash-point test takes fresh ones per replay. */
let tables = defaultTables;
const projectId = 7;
const now = new Date('2024-03-01T12:00:05.000Z');

let fake: DynaliteTables;

beforeEach(async () => {
  tables = defaultTables;
  fake = await DynaliteTables.start(['main', 'events']);
  await fake.seed('main', {
    PK: `PROJECT#${projectId}`,
    SK: 'PROJECT',
    GSI1PK: 'ORG#o#PROJECTS',
    GSI1SK: '000000000007',
    id: projectId,
    ingested_event: false,
  });
});

afterEach(async () => {
  await fake.stop();
});

let sequence = 0;
const uuid = (): string => `018e0000-0000-7000-8000-${String(++sequence).padStart(12, '0')}`;

function rawEvent(
  event: string,
  distinctId: string,
  properties: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
) {
  return {
    uuid: uuid(),
    distinct_id: distinctId,
    data: { event, distinct_id: distinctId, timestamp: '2024-03-01T12:00:00.000Z', properties, ...extra },
  };
}

function record(
  messageId: string,
  events: CaptureMessage['events'],
  overrides: Partial<CaptureMessage> = {},
): SQSRecord {
  const message: CaptureMessage = {
    v: 1,
    project_id: projectId,
    now: '2024-03-01T12:00:01.000Z',
    sent_at: '2024-03-01T12:00:01.000Z',
    ip: '203.0.113.9',
    site_url: 'https://example.com',
    events,
    ...overrides,
  };
  return { messageId, body: JSON.stringify(message) } as SQSRecord;
}

/** A realistic ~1 KB posthog-js pageview. */
function pageview(distinctId: string, i: number) {
  return rawEvent(
    i % 5 === 0 ? '$pageview' : `event ${i % 7}`,
    distinctId,
    {
      $current_url: `https://example.com/products/${i % 100}?ref=newsletter&utm_source=bench`,
      $host: 'example.com',
      $pathname: `/products/${i % 100}`,
      $browser: 'Chrome',
      $browser_version: 131,
      $os: 'Mac OS X',
      $device_type: 'Desktop',
      $screen_height: 1080,
      $screen_width: 1920,
      $lib: 'web',
      $lib_version: '1.449.2',
      $referrer: 'https://www.google.com/',
      $referring_domain: 'www.google.com',
      $session_id: randomUUID(),
      $window_id: randomUUID(),
      utm_source: 'bench',
      plan: i % 3 === 0 ? 'pro' : 'free',
      cart_value: (i % 97) * 3.5,
      items: ['sku-1', 'sku-2', 'sku-3'],
      description: 'x'.repeat(200),
    },
    { timestamp: new Date(Date.parse('2024-03-01T12:00:00.000Z') - (50 - i) * 100).toISOString() },
  );
}

const ingest = (records: SQSRecord[], memory = newConsumerMemory()) =>
  ingestRecords(records, tables, memory, now);

/** What readers see: each distinct id's live person, events, definitions; not versions or leftovers. */
async function view(): Promise<Record<string, unknown>> {
  const main = await fake.items(tables.singleTable);
  const personOf = (distinctId: string): unknown => {
    let uuid = main.get(`DID#${projectId}#${distinctId} DID`)?.person as string | undefined;
    for (let hop = 0; uuid !== undefined && hop < 10; hop++) {
      const person = main.get(`PERSON#${projectId}#${uuid} PERSON`);
      if (!person) return `missing ${uuid}`;
      if (person.merged_into === undefined) {
        return {
          uuid: person.uuid,
          props: JSON.parse(person.props as string) as unknown,
          identified: person.is_identified,
          created: person.created_at,
          ids: [...(person.distinct_ids as string[])].sort(),
        };
      }
      uuid = person.merged_into as string;
    }
    return undefined;
  };
  const distinctIds = [...main.values()]
    .filter((item) => item.SK === 'DID')
    .map((item) => item.distinct_id as string);
  return {
    persons: Object.fromEntries(distinctIds.sort().map((distinctId) => [distinctId, personOf(distinctId)])),
    emailIndex: [...main.values()]
      .filter((item) => String(item.PK).startsWith('PEMAIL#'))
      .map((item) => `${String(item.PK)} → ${String(item.person)}`)
      .sort(),
    definitions: [...main.values()]
      .filter((item) => String(item.SK).startsWith('EVDEF#'))
      .sort((a, b) => (String(a.SK) < String(b.SK) ? -1 : 1)),
    project: main.get(`PROJECT#${projectId} PROJECT`),
    events: await visibleEvents(),
  };
}

/**
 * What readers of the events table see: each event item listed by an index page of its owner
 * (event-index.ts), without the owner itself, which a redelivery changes; and per index value
 * (shard aside), the uuids validly listed.
 */
async function visibleEvents(): Promise<Record<string, unknown>> {
  const items = await fake.items(tables.eventsTable);
  const events = new Map(
    [...items.values()].filter((item) => item.SK === 'E').map((item) => [item.uuid as string, item]),
  );
  const listed: Record<string, string[]> = {};
  const shown = new Map<string, Record<string, unknown>>();
  for (const page of [...items.values()].filter((item) => item.SK !== 'E')) {
    const partition = String(page.PK).replace(/^(I#\d+#[^#]+#)\d+#/, '$1*#');
    for (const line of String(page.entries).split('\n')) {
      const [timestamp, uuid] = line.split(' ') as [string, string];
      const event = events.get(uuid);
      if (!event || event.owner !== page.owner || event.ts !== timestamp) continue;
      (listed[partition] ??= []).push(uuid);
      const { owner: _owner, ...rest } = event;
      shown.set(uuid, rest);
    }
  }
  for (const uuids of Object.values(listed)) uuids.sort();
  return {
    items: [...shown.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
    listed: Object.fromEntries(Object.entries(listed).sort(([a], [b]) => (a < b ? -1 : 1))),
  };
}

const volumes = async (): Promise<Record<string, unknown>> =>
  Object.fromEntries(
    [...(await fake.items(tables.singleTable)).values()]
      .filter((item) => String(item.PK).startsWith('EVVOL#'))
      .map((item) => [`${String(item.PK)} ${String(item.SK)}`, item.count]),
  );

describe('ingest consumer', () => {
  it('stores events, creates persons and definitions, counts volumes and flips ingested_event', async () => {
    const response = await ingest([
      record('m-1', [
        rawEvent('$pageview', 'anon', { $browser: 'Firefox', utm_source: 'news' }),
        rawEvent('$identify', 'user', { $anon_distinct_id: 'anon' }, { $set: { email: 'u@example.com' } }),
      ]),
    ]);
    expect(response).toEqual({ batchItemFailures: [] });
    const main = await fake.items('main');
    const personUuid = personUuidFor(projectId, 'anon');
    expect(main.get(`DID#${projectId}#anon DID`)).toMatchObject({ person: personUuid });
    expect(main.get(`DID#${projectId}#user DID`)).toMatchObject({ person: personUuid });
    const person = main.get(`PERSON#${projectId}#${personUuid} PERSON`)!;
    expect(JSON.parse(person.props as string)).toEqual({
      utm_source: 'news',
      $initial_utm_source: 'news',
      $initial_browser: 'Firefox',
      email: 'u@example.com',
    });
    expect(person).toMatchObject({
      is_identified: true,
      distinct_ids: ['anon', 'user'],
      created_at: '2024-03-01T12:00:00.000Z',
    });
    expect(main.get(`PROJECT#${projectId} EVDEF#$pageview`)).toMatchObject({
      name: '$pageview',
      last_seen_at: now.toISOString(),
      created_at: now.toISOString(),
    });
    expect(main.get(`PROJECT#${projectId} EVDEF#$identify`)).toBeDefined();
    expect(await volumes()).toEqual({
      [`EVVOL#${projectId}#$pageview 2024-03-01`]: 1,
      [`EVVOL#${projectId}#$identify 2024-03-01`]: 1,
    });
    expect(main.get(`PROJECT#${projectId} PROJECT`)).toMatchObject({ ingested_event: true });
    expect([...(await fake.items('events')).keys()].filter((key) => key.startsWith('E#'))).toHaveLength(2);
  });

  it('applies a merge whose events arrive in two messages of the same batch, in timestamp order', async () => {
    await ingest([
      record('m-2', [
        rawEvent(
          '$identify',
          'user',
          { $anon_distinct_id: 'anon' },
          { timestamp: '2024-03-01T12:00:03.000Z' },
        ),
      ]),
      record('m-1', [
        rawEvent('$pageview', 'anon', { $set: { color: 'red' } }, { timestamp: '2024-03-01T12:00:01.000Z' }),
      ]),
    ]);
    const persons = (await view()).persons as Record<string, { uuid: string; props: unknown }>;
    expect(persons.anon).toEqual(persons.user);
    expect(persons.user).toMatchObject({ uuid: personUuidFor(projectId, 'anon'), props: { color: 'red' } });
  });

  it('skips person processing for events sent with $process_person_profile: false', async () => {
    await ingest([
      record('m-1', [rawEvent('$pageview', 'anon', { $process_person_profile: false, utm_source: 'x' })]),
    ]);
    const main = await fake.items('main');
    expect([...main.keys()].filter((key) => key.startsWith('DID#') || key.startsWith('PERSON#'))).toEqual([]);
    expect(await volumes()).toEqual({ [`EVVOL#${projectId}#$pageview 2024-03-01`]: 1 });
  });

  it('ingests events whose name and distinct ids are lone surrogates instead of failing the message', async () => {
    // Prepare: JSON can carry `"\ud800"`, which has no UTF-8 form.
    const records = [
      record('m-1', [
        rawEvent('\ud800', 'anon\udc00'),
        rawEvent('$identify', 'user', { $anon_distinct_id: '\ud800' }),
      ]),
    ];

    // Act
    const response = await ingest(records);

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    const main = await fake.items('main');
    expect(main.get(`PROJECT#${projectId} EVDEF#\ud800`)).toMatchObject({ name: '\ud800' });
    expect(main.get(`DID#${projectId}#anon\udc00 DID`)).toMatchObject({
      person: personUuidFor(projectId, 'anon\udc00'),
    });
    const merged = main.get(`DID#${projectId}#\ud800 DID`)?.person;
    expect(merged).toEqual(expect.any(String));
    expect(main.get(`DID#${projectId}#user DID`)?.person).toBe(merged);
  });

  it('drops an undecodable record with a log instead of retrying it, and ingests the others', async () => {
    const response = await ingest([
      { messageId: 'not-json', body: '{"v":1,' } as SQSRecord,
      { messageId: 'not-a-message', body: JSON.stringify({ v: 2, events: [] }) } as SQSRecord,
      record('m-1', [rawEvent('$pageview', 'anon')]),
    ]);
    expect(response).toEqual({ batchItemFailures: [] });
    expect((await view()).persons).toHaveProperty('anon');
  });

  it('reports exactly the messages whose person writes failed, and stores only the others’ events', async () => {
    fake.failWrite = (_attempt, description) =>
      description.includes(`DID#${projectId}#bob`)
        ? Object.assign(new Error('injected'), { name: 'InternalServerError' })
        : undefined;
    const response = await ingest([
      record('m-alice', [rawEvent('$pageview', 'alice')]),
      record('m-bob', [rawEvent('$pageview', 'bob')]),
      record('m-both', [rawEvent('$pageview', 'alice'), rawEvent('$pageview', 'bob')]),
    ]);
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual([
      'm-bob',
      'm-both',
    ]);
    const stored = [...(await fake.items('events')).values()]
      .filter((item) => item.SK === 'E')
      .map((item) => item.distinct_id);
    expect(stored).toEqual(['alice']);
  });

  it('reports exactly the messages whose event items could not be stored', async () => {
    // Throttled for good on every retry: those items stay unprocessed.
    fake.leaveUnprocessed = (description) =>
      description.startsWith('batch-put events') && description.endsWith(' distinct_id=bob');
    const response = await ingest([
      record('m-good', [rawEvent('$pageview', 'alice')]),
      record('m-bad', [rawEvent('$pageview', 'bob')]),
    ]);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-bad' }]);
  });

  it('reports the messages whose definition or volume writes failed', async () => {
    fake.failWrite = (_attempt, description) =>
      description.includes('EVVOL#7#signup')
        ? Object.assign(new Error('injected'), { name: 'InternalServerError' })
        : undefined;
    const response = await ingest([
      record('m-pageview', [rawEvent('$pageview', 'alice')]),
      record('m-signup', [rawEvent('signup', 'alice')]),
    ]);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-signup' }]);
  });

  it('hands the stored events to the lake while their definitions are still being written', async () => {
    // Prepare: the lake queue answers, and the volume write waits (up to 2 s) for the lake hand-off.
    const sqs = mockClient(SQSClient);
    let handedToLake = (): void => undefined;
    const lakeSend = new Promise<boolean>((resolve) => {
      handedToLake = () => resolve(true);
    });
    sqs.on(SendMessageBatchCommand).callsFake((input: { Entries: { Id: string }[] }) => {
      handedToLake();
      return { Successful: input.Entries.map(({ Id }) => ({ Id })), Failed: [] };
    });
    let lakeBeforeVolume: boolean | undefined;
    fake.failWrite = async (_attempt, description) => {
      if (description.includes('EVVOL#7#'))
        lakeBeforeVolume = await Promise.race([lakeSend, sleep(2000, false, { ref: false })]);
      return undefined;
    };

    // Act
    const response = await ingestRecords(
      [record('m-1', [rawEvent('$pageview', 'alice')])],
      { ...tables, lakeQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/lake' },
      newConsumerMemory(),
      now,
    );
    sqs.restore();

    // Assess: the two ran at the same time, and both wrote.
    expect(response.batchItemFailures).toEqual([]);
    expect(lakeBeforeVolume).toBe(true);
    expect(fake.writes.some((write) => write.key.startsWith('EVVOL#7#$pageview'))).toBe(true);
  });

  it('ends in the same state when a completed batch is delivered again, counters aside', async () => {
    const batch = [
      record('m-1', [rawEvent('$pageview', 'anon', { $set: { a: 1 } }), rawEvent('$pageview', 'old')]),
      record('m-2', [
        rawEvent('$identify', 'user', { $anon_distinct_id: 'anon', $set: { b: 2 }, $unset: ['a'] }),
      ]),
      record('m-3', [rawEvent('$create_alias', 'user', { alias: 'old' })]),
    ];
    await ingest(batch);
    const first = await view();
    const counted = await volumes();
    fake.resetWrites();
    await ingest(batch);
    expect(await view()).toEqual(first);
    // Persons and definitions write nothing the second time; events are rewritten (same items) and
    // counters count again: the documented trade-off.
    expect(fake.writes.filter((write) => write.table === 'main' && !write.key.startsWith('EVVOL#'))).toEqual(
      [],
    );
    expect(await volumes()).toEqual(
      Object.fromEntries(Object.entries(counted).map(([key, count]) => [key, (count as number) * 2])),
    );
  });

  it('ends in the same state after dying at any write and being delivered again', async () => {
    const batch = (): SQSRecord[] => [
      record('m-1', [
        rawEvent('$pageview', 'anon', { $set: { plan: 'free' }, $browser: 'Chrome' }),
        rawEvent('$pageview', 'other-anon', { $set: { seen: true } }),
      ]),
      record('m-2', [
        rawEvent('$identify', 'user', { $anon_distinct_id: 'anon' }, { $set: { email: 'u@example.com' } }),
      ]),
      record('m-3', [
        rawEvent('$create_alias', 'user', { alias: 'other-anon' }),
        rawEvent('$identify', 'existing', { $anon_distinct_id: 'old-anon' }),
        rawEvent('signup', 'user', { $set: { plan: 'pro' }, $unset: ['seen'] }),
      ]),
    ];
    const seedRecord = record('m-0', [
      rawEvent('$pageview', 'old-anon', { $set: { from: 'old' } }),
      rawEvent('$pageview', 'existing'),
    ]);
    const events = batch();

    // Prepare: what the seed batch leaves, kept to start every replay from.
    await ingest([seedRecord]);
    const seeded = { main: await fake.items('main'), events: await fake.items('events') };
    const before = fake.attempted;
    await ingest(events);
    const expected = await view();
    expect(expected.emailIndex).toEqual([
      `PEMAIL#${projectId}#u@example.com → ${(expected.persons as Record<string, { uuid: string }>).user!.uuid}`,
    ]);
    const batchWrites = fake.attempted - before;
    expect(batchWrites).toBeGreaterThan(15);

    // Act and assess: for each crash point, fresh tables holding what the seed left (a copy, not a
    // second ingestion), the batch dying at that write, then delivered again. A run that dies makes
    // the same attempts as a clean one up to that write, so the crash points are the clean run's
    // writes: the loop ends at the first run that makes fewer attempts than `dieAt` (nothing died).
    let died = true;
    let dieAt = 0;
    while (died) {
      dieAt += 1;
      tables = { eventsTable: `events-${dieAt}`, singleTable: `main-${dieAt}` };
      await fake.create([tables.singleTable, tables.eventsTable]);
      await fake.seedAll(tables.singleTable, seeded.main.values());
      await fake.seedAll(tables.eventsTable, seeded.events.values());
      const start = fake.attempted;
      died = false;
      fake.failWrite = (attempt) => {
        if (attempt !== start + dieAt) return undefined;
        died = true;
        return Object.assign(new Error('consumer died'), { name: 'InternalServerError' });
      };
      await ingest(events);
      fake.failWrite = undefined;
      // SQS delivers every message again (a dead consumer reports nothing), with fresh memory.
      const second = await ingest(events);
      expect({ dieAt, failures: second.batchItemFailures }).toEqual({ dieAt, failures: [] });
      expect({ dieAt, view: await view() }).toEqual({ dieAt, view: expected });
    }
    // Every write of the clean run was a crash point, and the run past them completed.
    expect(dieAt).toBe(batchWrites + 1);
  }, 180_000);

  it('re-reads and lands on the other person when another consumer claims a distinct id first', async () => {
    const theirs = 'theirs-0000-5000-8000-000000000000';
    let raced = false;
    fake.failWrite = async (_attempt, description) => {
      if (!raced && description === `put main DID#${projectId}#anon DID`) {
        raced = true;
        await fake.seed('main', {
          PK: `DID#${projectId}#anon`,
          SK: 'DID',
          project: projectId,
          distinct_id: 'anon',
          person: theirs,
        });
        await fake.seed('main', {
          PK: `PERSON#${projectId}#${theirs}`,
          SK: 'PERSON',
          uuid: theirs,
          project: projectId,
          created_at: '2024-03-01T11:00:00.000Z',
          is_identified: false,
          props: '{"theirs":true}',
          distinct_ids: ['anon'],
          version: 1,
        });
      }
      return undefined;
    };
    const response = await ingest([record('m-1', [rawEvent('$pageview', 'anon', { $set: { ours: true } })])]);
    expect(response.batchItemFailures).toEqual([]);
    expect((await view()).persons).toEqual({
      anon: {
        uuid: theirs,
        props: { theirs: true, ours: true },
        identified: false,
        created: '2024-03-01T11:00:00.000Z',
        ids: ['anon'],
      },
    });
    expect(
      await fake.get('main', { PK: `PERSON#${projectId}#${personUuidFor(projectId, 'anon')}`, SK: 'PERSON' }),
    ).toBeUndefined();
  });

  it('re-reads and keeps both updates when another consumer changes the person in between', async () => {
    await ingest([record('m-0', [rawEvent('$pageview', 'anon', { $set: { a: 1 } })])]);
    const key = { PK: `PERSON#${projectId}#${personUuidFor(projectId, 'anon')}`, SK: 'PERSON' };
    let raced = false;
    fake.failWrite = async (_attempt, description) => {
      if (!raced && description === `put main ${key.PK} PERSON`) {
        raced = true;
        const person = (await fake.get('main', key))!;
        await fake.seed('main', {
          ...person,
          props: '{"a":1,"theirs":true}',
          version: (person.version as number) + 1,
        });
      }
      return undefined;
    };
    await ingest([record('m-1', [rawEvent('$pageview', 'anon', { $set: { ours: true } })])]);
    expect(JSON.parse((await fake.get('main', key))!.props as string)).toEqual({
      a: 1,
      theirs: true,
      ours: true,
    });
    expect((await fake.get('main', key))!.version).toBe(3);
  });

  it('gives up after repeated conflicts and leaves the message to SQS', async () => {
    await ingest([record('m-0', [rawEvent('$pageview', 'anon')])]);
    const key = { PK: `PERSON#${projectId}#${personUuidFor(projectId, 'anon')}`, SK: 'PERSON' };
    fake.failWrite = async (_attempt, description) => {
      if (description === `put main ${key.PK} PERSON`) {
        const person = (await fake.get('main', key))!;
        await fake.seed('main', { ...person, version: (person.version as number) + 1 });
      }
      return undefined;
    };
    const response = await ingest([record('m-1', [rawEvent('$pageview', 'anon', { $set: { ours: true } })])]);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm-1' }]);
    expect((await fake.items('events')).size).toBe(4); // m-0's event and index pages only
  });

  it('leaves persons alone in a later batch that changes nothing, and skips known definitions', async () => {
    const memory = newConsumerMemory();
    await ingest([record('m-1', [rawEvent('$pageview', 'anon', { $browser: 'Chrome' })])], memory);
    fake.resetWrites();
    fake.mock.resetHistory();
    fake.lowLevelMock.resetHistory();
    await ingest([record('m-2', [rawEvent('$pageview', 'anon', { $browser: 'Chrome' })])], memory);
    expect(
      fake.writes.filter((write) => write.table === 'main').map((write) => write.key.split(' ')[0]),
    ).toEqual([`EVVOL#${projectId}#$pageview`]);
    // Only the person reads and the events' keys (EventsAlreadyStored, through the low-level client):
    // definitions and the project flag are known to this container.
    expect(fake.mock).toHaveReceivedCommandTimes(BatchGetCommand, 2);
    expect(fake.lowLevelMock).toHaveReceivedCommandTimes(BatchGetItemCommand, 1);
    const eventKeyReads = fake.lowLevelMock
      .commandCalls(BatchGetItemCommand)
      .filter((call) => Object.keys(call.args[0].input.RequestItems ?? {}).includes('events'));
    expect(eventKeyReads).toHaveLength(1);
    expect(fake.mock).toHaveReceivedCommandTimes(GetCommand, 0);
  });

  it('reads but does not rewrite a definition already seen today by another container', async () => {
    await ingest([record('m-1', [rawEvent('$pageview', 'anon')])]);
    fake.mock.resetHistory();
    await ingest([record('m-2', [rawEvent('$pageview', 'anon')])], newConsumerMemory());
    const definitionWrites = fake.mock
      .commandCalls(UpdateCommand)
      .filter((call) => String(call.args[0].input.Key?.SK).startsWith('EVDEF#'));
    expect(definitionWrites).toEqual([]);
  });

  describe('write cost of a /batch/ of 50 ~1 KB events (one SQS message)', () => {
    const batchOf = (users: readonly string[]) =>
      record(
        randomUUID(),
        Array.from({ length: 50 }, (_, i) => pageview(users[i % users.length]!, i)),
      );
    const users = (prefix: string, count: number): string[] =>
      Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

    /** Write units per event of one batch, and per kind of item (first segment of the key). */
    const cost = async (
      run: () => Promise<unknown>,
    ): Promise<{ perEvent: number; units: Record<string, number> }> => {
      fake.resetWrites();
      await run();
      const units: Record<string, number> = {};
      for (const write of fake.writes) {
        const kind =
          write.key.startsWith('PROJECT#') && write.key.includes('EVDEF#')
            ? 'EVDEF'
            : write.key.split(/[# ]/)[0]!;
        units[kind] = (units[kind] ?? 0) + write.units;
      }
      return { perEvent: fake.unitsWritten() / 50, units };
    };

    it('stays within 2.8 units per event for one new user, first sight of every name and the project’s first event included', async () => {
      const { perEvent, units } = await cost(() => ingest([batchOf(['visitor'])]));
      // E: event items, I: index pages, DID + PERSON + PERSONS: the new person and its listing item
      // (for the persons API), EVDEF: 8 new definitions (each
      // with its GSI1 copy, for lookups by id), EVVOL: 8 counters, PROJECT: ingested_event (with its
      // GSI1 copy), the event definition count, 30 property definitions and their count, EVPROP: the
      // property names of each of the 8 event names, PROPVAL: the property value sample (one write
      // per 25 events). Property definitions cost 0.78 units per event here, once per project.
      expect(units).toEqual({
        E: 50,
        I: expect.any(Number),
        DID: 1,
        PERSON: 1,
        PERSONS: 1,
        EVDEF: 16,
        EVVOL: 8,
        PROJECT: 34,
        EVPROP: 8,
        PROPVAL: 2,
      });
      expect(perEvent).toBeLessThanOrEqual(2.8);
    });

    it('costs about 2.2 units per event for ten brand-new users in one batch: three writes per new person', async () => {
      const memory = newConsumerMemory();
      await ingest([batchOf(users('earlier', 10))], memory);
      const { perEvent, units } = await cost(() => ingest([batchOf(users('new', 10))], memory));
      expect(units).toEqual({
        E: 50,
        I: expect.any(Number),
        DID: 10,
        PERSON: 10,
        PERSONS: 10,
        EVVOL: 8,
        PROPVAL: 2,
      });
      expect(perEvent).toBeLessThanOrEqual(2.24);
    });

    it('writes nothing for known users and names but one counter per name', async () => {
      const memory = newConsumerMemory();
      await ingest([batchOf(users('user', 10))], memory);
      const { perEvent, units } = await cost(() => ingest([batchOf(users('user', 10))], memory));
      expect(units).toEqual({ E: 50, I: expect.any(Number), EVVOL: 8, PROPVAL: 2 });
      expect(perEvent).toBeLessThanOrEqual(2.0);
    });
  });

  it('sends the events of one message in as few BatchWriteItem calls as possible', async () => {
    await ingest([
      record(
        'm-1',
        Array.from({ length: 50 }, (_, i) => pageview('user-1', i)),
      ),
    ]);
    // The events table's items (50 events and their index pages) in as few calls as fit.
    const calls = fake.mock
      .commandCalls(BatchWriteCommand)
      .filter((call) =>
        Object.keys(call.args[0].input.RequestItems ?? {}).some((table) => table.includes('events')),
      );
    expect(calls.length).toBeLessThanOrEqual(3);
  });
});
