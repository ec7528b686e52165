import { BatchGetCommand, BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { itemsOfBatch } from '../../../../functions/consumer/store';
import type {
  IndexedEntry,
  IndexEntry,
  ReadBounds,
  ReadOrder,
} from '../../../../functions/shared/db/event-index';
import { documentClient } from '../../../../functions/shared/db/client';
import { eventIndexes, readEntries } from '../../../../functions/shared/db/event-index';
import { skipEntries } from '../../../../functions/shared/db/event-skip';
import type { StoredEvent } from '../../../../functions/shared/domain/event';
import { DynaliteTables } from '../../../helpers/dynalite-tables';

const tableName = 'events';
const projectId = 7;
const distinctIds = ['anna', 'ben', 'cleo'];
const names = ['$pageview', 'signed up', 'purchase'];
const base = Date.UTC(2026, 10, 21, 10, 0, 0);

/** A deterministic pseudo-random sequence (Park–Miller), so a failure replays. */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 48_271) % 2_147_483_647) / 2_147_483_647;
}

const uuidOf = (n: number): string => `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`;

let fake: DynaliteTables;

/**
 * A delivery's index pages, as the consumer writes them (skipping reads nothing else); `uncounted`,
 * as they were written before pages carried their entry count.
 */
async function store(events: StoredEvent[], owner: string, uncounted = false): Promise<void> {
  const items = itemsOfBatch([{ messageId: owner, projectId, events }], owner)
    .map((put) => put.item)
    .filter((item) => String(item.PK).startsWith('I#'))
    .map(({ n, ...page }) => (uncounted ? page : { ...page, n }));
  for (let i = 0; i < items.length; i += 25)
    await documentClient.send(
      new BatchWriteCommand({
        RequestItems: { [tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
}

/**
 * A project as ingestion leaves it, in one of two layouts. `interleaved`: deliveries of 1–40 events
 * spread over twelve minutes (so most minutes hold pages of several deliveries on several shards,
 * whose time ranges meet). `in time order`: each delivery's events follow the previous delivery's
 * (so most minutes hold one page, or pages whose ranges do not meet, counted without their lines),
 * a few deliveries' pages written without their entry count, as before pages carried one. Both with
 * events sharing a timestamp, a delivery redelivered (its events listed twice, under two owners) and
 * a retried event listed again with the same timestamp by another delivery.
 */
async function seed(layout: 'interleaved' | 'in time order'): Promise<void> {
  const next = random(27);
  let n = 0;
  const deliveries: StoredEvent[][] = [];
  for (let delivery = 0; delivery < 24; delivery++) {
    const events: StoredEvent[] = [];
    const size = 1 + Math.floor(next() * 40);
    for (let i = 0; i < size; i++) {
      const id = n++;
      // Whole seconds: many events tie on their timestamp and order by uuid.
      const second =
        layout === 'interleaved'
          ? Math.floor(next() * 12 * 60)
          : Math.floor((delivery + (i + next()) / size) * 30);
      const timestamp = new Date(base + second * 1000).toISOString();
      events.push({
        uuid: uuidOf(id),
        projectId,
        event: names[Math.floor(next() * names.length)]!,
        distinctId: distinctIds[Math.floor(next() * distinctIds.length)]!,
        properties: {},
        timestamp,
        elementsChain: '',
        createdAt: timestamp,
      });
    }
    deliveries.push(events);
  }
  for (const [i, events] of deliveries.entries())
    await store(events, `delivery-${i}`, layout === 'in time order' && i % 7 === 2);
  await store(deliveries[3]!, 'redelivery-3');
  await store([deliveries[5]![0]!, ...deliveries[6]!.slice(0, 2)], 'retry');
}

/**
 * What the offset skipped to before: the first `count` entries merged and ordered, by `readEntries`,
 * and the `following` ones after them. Its limit only cuts the same order (candidates sorted, then cut
 * to `limit`), so the first entries of one reading of every entry are what a reading with a limit
 * returns.
 */
function skipByReading(ordered: readonly IndexedEntry[], count: number, following = 0) {
  if (count === 0) return { skipped: 0, last: undefined, following: [] };
  const entries = ordered.slice(0, count + following);
  const last = entries[Math.min(count, entries.length) - 1];
  return {
    skipped: Math.min(count, entries.length),
    last: last && { timestamp: last.timestamp, uuid: last.uuid },
    following: entries.slice(count),
  };
}

/** Entries as `readEntries` gives them, their owners in one order. */
const comparable = (entries: readonly IndexedEntry[]) =>
  entries.map((entry) => ({ ...entry, owners: [...entry.owners].sort() }));

function lastOf(bounds: ReadBounds, order: ReadOrder): IndexEntry | undefined {
  const bound = order === 'newest' ? bounds.before : bounds.after;
  return bound && { timestamp: bound.timestamp, uuid: bound.uuid! };
}

describe.each(['interleaved', 'in time order'] as const)('skipEntries over deliveries %s', (layout) => {
  beforeAll(async () => {
    fake = await DynaliteTables.start([tableName]);
    await seed(layout);
  }, 120_000);

  afterAll(async () => {
    await fake.stop();
  });

  const at = (minute: number, second: number) => ({
    timestamp: new Date(base + (minute * 60 + second) * 1000).toISOString(),
  });
  const sources = [
    { source: 'the whole project', index: eventIndexes.all, values: [''] },
    { source: 'an event name', index: eventIndexes.event, values: ['signed up'] },
    { source: 'a distinct id', index: eventIndexes.distinctId, values: ['ben'] },
    { source: "a person's distinct ids", index: eventIndexes.distinctId, values: ['anna', 'cleo'] },
  ];
  const boundsCases: { name: string; bounds: ReadBounds }[] = [
    { name: 'no bounds', bounds: {} },
    { name: 'before and after', bounds: { before: at(9, 30), after: at(2, 15) } },
    {
      name: 'a cursor inside a second',
      bounds: { before: { ...at(7, 0), uuid: uuidOf(500) }, after: { ...at(1, 0), uuid: uuidOf(100) } },
    },
  ];

  it.each(sources.flatMap((source) => boundsCases.map((bounds) => ({ ...source, ...bounds }))))(
    'ends where reading the entries in order ends, for $source with $name',
    async ({ index, values, bounds }) => {
      for (const order of ['newest', 'oldest'] as const) {
        const request = { tableName, projectId, index, values, bounds };
        const ordered = await readEntries({ ...request, order, limit: 100_000 });
        const all = ordered.length;
        expect(all).toBeGreaterThan(10);
        // The cut is the same as a reading with that limit (checked once per order, at the half).
        const half = Math.floor(all / 2);
        expect(await readEntries({ ...request, order, limit: half })).toEqual(ordered.slice(0, half));
        for (const count of [0, 1, 7, half, all - 1, all, all + 1]) {
          const expected = skipByReading(ordered, count, 5);
          const actual = await skipEntries(request, order, count, 5);
          expect({ count, order, skipped: actual.skipped, last: lastOf(actual.bounds, order) }).toEqual({
            count,
            order,
            skipped: expected.skipped,
            last: count === 0 ? lastOf(bounds, order) : expected.last,
          });
          expect(actual.exhausted).toBe(expected.skipped < count);
          // The entries a listing goes on with: at least as many as asked for (all that remain when
          // fewer do), those `readEntries` gives after the offset, with every owner that listed them.
          if (actual.following) {
            const { entries, complete } = actual.following;
            expect(entries.length >= 5 || complete).toBe(true);
            const shown = complete ? entries : entries.slice(0, 5);
            expect({ count, order, following: comparable(shown) }).toEqual({
              count,
              order,
              following: comparable(expected.following.slice(0, shown.length)),
            });
            if (complete) expect(entries).toHaveLength(expected.following.length);
          }
        }
      }
    },
    60_000,
  );
});

describe('skipEntries over a deep offset', () => {
  let deep: DynaliteTables;
  const request = { tableName, projectId, index: eventIndexes.all, values: [''] };

  beforeAll(async () => {
    // Prepare: 80 minutes of one delivery each, 25 events a minute (2,000 events, 80 pages on 4 shards).
    deep = await DynaliteTables.start([tableName]);
    for (let minute = 0; minute < 80; minute++) {
      const events = Array.from({ length: 25 }, (_, i): StoredEvent => {
        const timestamp = new Date(base + (minute * 60 + i * 2) * 1000).toISOString();
        return {
          uuid: uuidOf(minute * 25 + i),
          projectId,
          event: 'e',
          distinctId: 'd',
          properties: {},
          timestamp,
          elementsChain: '',
          createdAt: timestamp,
        };
      });
      await store(events, `minute-${minute}`);
    }
  }, 120_000);

  afterAll(async () => {
    await deep.stop();
  });

  beforeEach(() => deep.mock.resetHistory());

  /** The index pages whose entries the calls so far returned, by Query or by key. */
  async function pagesWithEntriesRead(): Promise<number> {
    const calls = [...deep.mock.commandCalls(QueryCommand), ...deep.mock.commandCalls(BatchGetCommand)];
    let pages = 0;
    for (const call of calls) {
      const output = (await call.returnValue) as {
        Items?: Record<string, unknown>[];
        Responses?: Record<string, Record<string, unknown>[]>;
      };
      const items = output.Items ?? Object.values(output.Responses ?? {}).flat();
      pages += items.filter((item) => 'entries' in item || 'ez' in item).length;
    }
    return pages;
  }

  it('asks each shard for the pages a deep offset needs in a few Queries, not one per doubling', async () => {
    // Act
    const skipped = await skipEntries(request, 'newest', 1_800);

    // Assess: the 1,800th newest event, in about two Queries per shard (its first pages, then the
    // rest at once); doubling from 2 pages took four per shard (2 + 4 + 8 + 16 pages).
    expect(skipped).toMatchObject({ skipped: 1_800, bounds: { before: { uuid: uuidOf(200) } } });
    expect(deep.mock.commandCalls(QueryCommand).length).toBeLessThanOrEqual(12);
  });

  it('counts the pages it passes over by their entry count, reading the entries of the minute where it ends only', async () => {
    // Act: 1,810 of 2,000 events skipped, the next 30 wanted.
    const skipped = await skipEntries(request, 'newest', 1_810, 30);

    // Assess: the 1,810th newest event and the 30 after it; of the 80 pages, those of the minute
    // where the offset ends and of the two after it read whole (72 were read whole before).
    expect(skipped).toMatchObject({ skipped: 1_810, bounds: { before: { uuid: uuidOf(190) } } });
    expect(await pagesWithEntriesRead()).toBeLessThanOrEqual(3);
    expect(skipped.following?.entries.slice(0, 30).map((entry) => entry.uuid)).toEqual(
      Array.from({ length: 30 }, (_, i) => uuidOf(189 - i)),
    );
  });
});
