import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { itemsOfBatch } from '../../../../functions/consumer/store';
import type { IndexEntry, ReadBounds, ReadOrder } from '../../../../functions/shared/db/event-index';
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

/** A delivery's index pages, as the consumer writes them (skipping reads nothing else). */
async function store(events: StoredEvent[], owner: string): Promise<void> {
  const items = itemsOfBatch([{ messageId: owner, projectId, events }], owner)
    .map((put) => put.item)
    .filter((item) => String(item.PK).startsWith('I#'));
  for (let i = 0; i < items.length; i += 25)
    await documentClient.send(
      new BatchWriteCommand({
        RequestItems: { [tableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
}

/**
 * A project as ingestion leaves it: deliveries of 1–40 events spread over twelve minutes (so most
 * minutes hold pages of several deliveries on several shards), events sharing a timestamp, a
 * delivery redelivered (its events listed twice, under two owners) and a retried event listed again
 * with the same timestamp by another delivery.
 */
async function seed(): Promise<void> {
  const next = random(27);
  let n = 0;
  const deliveries: StoredEvent[][] = [];
  for (let delivery = 0; delivery < 24; delivery++) {
    const events: StoredEvent[] = [];
    const size = 1 + Math.floor(next() * 40);
    for (let i = 0; i < size; i++) {
      const id = n++;
      // Whole seconds: many events tie on their timestamp and order by uuid.
      const timestamp = new Date(base + Math.floor(next() * 12 * 60) * 1000).toISOString();
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
  for (const [i, events] of deliveries.entries()) await store(events, `delivery-${i}`);
  await store(deliveries[3]!, 'redelivery-3');
  await store([deliveries[5]![0]!, ...deliveries[6]!.slice(0, 2)], 'retry');
}

/**
 * What the offset skipped to before: the first `count` entries merged and ordered, by `readEntries`.
 * Its limit only cuts the same order (candidates sorted, then cut to `limit`), so the first `count`
 * of one reading of every entry are what a reading with limit `count` returns.
 */
function skipByReading(ordered: readonly IndexEntry[], count: number) {
  if (count === 0) return { skipped: 0, last: undefined };
  const entries = ordered.slice(0, count);
  const last = entries[entries.length - 1];
  return { skipped: entries.length, last: last && { timestamp: last.timestamp, uuid: last.uuid } };
}

function lastOf(bounds: ReadBounds, order: ReadOrder): IndexEntry | undefined {
  const bound = order === 'newest' ? bounds.before : bounds.after;
  return bound && { timestamp: bound.timestamp, uuid: bound.uuid! };
}

describe('skipEntries', () => {
  beforeAll(async () => {
    fake = await DynaliteTables.start([tableName]);
    await seed();
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
          const expected = skipByReading(ordered, count);
          const actual = await skipEntries(request, order, count);
          expect({ count, order, skipped: actual.skipped, last: lastOf(actual.bounds, order) }).toEqual({
            count,
            order,
            skipped: expected.skipped,
            last: count === 0 ? lastOf(bounds, order) : expected.last,
          });
          expect(actual.exhausted).toBe(expected.skipped < count);
        }
      }
    },
    60_000,
  );
});

describe('skipEntries over a deep offset', () => {
  it('asks each shard for the pages a deep offset needs in a few Queries, not one per doubling', async () => {
    // Prepare: 80 minutes of one delivery each, 25 events a minute (2,000 events, 80 pages on 4 shards).
    const deep = await DynaliteTables.start([tableName]);
    try {
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
      deep.mock.resetHistory();
      const request = { tableName, projectId, index: eventIndexes.all, values: [''] };

      // Act
      const skipped = await skipEntries(request, 'newest', 1_800);

      // Assess: the 1,800th newest event, in about two Queries per shard (its first pages, then the
      // rest at once); doubling from 2 pages took four per shard (2 + 4 + 8 + 16 pages).
      expect(skipped).toMatchObject({ skipped: 1_800, bounds: { before: { uuid: uuidOf(200) } } });
      expect(deep.mock.commandCalls(QueryCommand).length).toBeLessThanOrEqual(12);
    } finally {
      await deep.stop();
    }
  });
});
