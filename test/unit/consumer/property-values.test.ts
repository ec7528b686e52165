import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { PropertyValueSampler, valuesPerKeyPerMinute } from '../../../functions/consumer/property-values';
import type { MessageEvents } from '../../../functions/consumer/types';
import type { StoredEvent } from '../../../functions/shared/domain/event';

const dynamodb = mockClient(DynamoDBDocumentClient);

const event = (i: number, properties: Record<string, unknown>): StoredEvent => ({
  uuid: `u-${i}`,
  projectId: 7,
  event: 'e',
  distinctId: 'd',
  properties,
  timestamp: new Date(Date.UTC(2026, 10, 21, 10, 0, i)).toISOString(),
  elementsChain: '',
  createdAt: '2026-11-21T10:00:00.000Z',
});

const message = (events: StoredEvent[]): MessageEvents => ({ messageId: 'm', projectId: 7, events });

const written = (): { PK: string; SK: string; last_seen: string }[] =>
  dynamodb
    .commandCalls(BatchWriteCommand)
    .flatMap((call) => Object.values(call.args[0].input.RequestItems ?? {}).flat())
    .map((request) => request.PutRequest!.Item as { PK: string; SK: string; last_seen: string });

describe('PropertyValueSampler', () => {
  beforeEach(() => {
    dynamodb.reset();
    dynamodb.on(BatchWriteCommand).resolves({});
  });

  it('writes one sampled value per 25 events, spreading over keys first', async () => {
    const sampler = new PropertyValueSampler();
    const events = Array.from({ length: 100 }, (_, i) =>
      event(i, { color: ['red', 'green', 'blue'][i % 3], n: i }),
    );
    await sampler.sample('main', [message(events)]);
    const items = written();
    expect(items).toHaveLength(4);
    expect(new Set(items.map((item) => item.PK))).toEqual(new Set(['PROPVAL#7#color', 'PROPVAL#7#n']));
  });

  it('writes at most valuesPerKeyPerMinute new values of a property per minute, however many events', async () => {
    // Prepare: every event has a new value of `n` (session ids, URLs): a budget of 40 per batch.
    const sampler = new PropertyValueSampler();
    const batch = (from: number) => [
      message(Array.from({ length: 1000 }, (_, i) => event(from + i, { n: from + i }))),
    ];
    const start = Date.UTC(2026, 10, 21, 10, 0, 0);

    // Act: two batches within a minute, a third one after it.
    await sampler.sample('main', batch(0), start);
    const inFirstMinute = written().length;
    await sampler.sample('main', batch(1000), start + 30_000);
    const afterSecondBatch = written().length;
    await sampler.sample('main', batch(2000), start + 61_000);

    // Assert
    expect(inFirstMinute).toBe(valuesPerKeyPerMinute);
    expect(afterSecondBatch).toBe(valuesPerKeyPerMinute);
    expect(written()).toHaveLength(2 * valuesPerKeyPerMinute);
  });

  it('carries the credit of small batches to the next', async () => {
    const sampler = new PropertyValueSampler();
    await sampler.sample('main', [message(Array.from({ length: 20 }, (_, i) => event(i, { color: 'red' })))]);
    expect(written()).toHaveLength(0);
    await sampler.sample('main', [message(Array.from({ length: 5 }, (_, i) => event(i, { color: 'red' })))]);
    expect(written()).toEqual([expect.objectContaining({ PK: 'PROPVAL#7#color', SK: 'red' })]);
  });

  it('flattens lists, writes values as text, keeps the latest time seen and skips person updates', async () => {
    const sampler = new PropertyValueSampler();
    // Credit for two writes from events without properties, then a small batch it looks at whole.
    await sampler.sample('main', [message(Array.from({ length: 50 }, (_, i) => event(i, {})))]);
    const events = [
      event(1, { tags: ['a', 'b'], $set: { email: 'x' } }),
      event(2, { flag: true }),
      event(3, { tags: ['a'] }),
    ];
    await sampler.sample('main', [message(events)]);
    const items = written();
    expect(items.map((item) => `${item.PK} ${item.SK}`).sort()).toEqual([
      'PROPVAL#7#flag true',
      'PROPVAL#7#tags a',
    ]);
    expect(items.find((item) => item.SK === 'a')?.last_seen).toBe(events[events.length - 1]!.timestamp);
  });

  it('looks at a number of events proportional to its budget, spread over the batch', async () => {
    const sampler = new PropertyValueSampler();
    const events = Array.from({ length: 100 }, (_, i) => event(i, { n: i }));
    await sampler.sample('main', [message(events)]);
    // Budget 4 → 16 events looked at, one every 6.25: not the first 16 events.
    const values = written()
      .map((item) => Number(item.SK))
      .sort((a, b) => a - b);
    expect(values).toHaveLength(4);
    for (let i = 1; i < values.length; i++) expect(values[i]! - values[i - 1]!).toBeGreaterThanOrEqual(6);
  });

  it('does not write again what it wrote within the hour', async () => {
    const sampler = new PropertyValueSampler();
    const batch = [message(Array.from({ length: 25 }, (_, i) => event(i, { color: 'red' })))];
    await sampler.sample('main', batch, 0);
    await sampler.sample('main', batch, 1_000);
    expect(written()).toHaveLength(1);
  });

  it('never samples a key or value whose item key DynamoDB would refuse (1 KB sort key, 2 KB partition key)', async () => {
    // Prepare: 400 characters of three UTF-8 bytes each are 1,200 bytes, over the sort key's 1,024.
    const sampler = new PropertyValueSampler();
    const wideValue = '中'.repeat(400);
    const wideKey = '键'.repeat(700);
    const events = Array.from({ length: 100 }, (_, i) =>
      event(i, { city: wideValue, [wideKey]: 'x', ok: 'fine' }),
    );

    // Act
    await sampler.sample('main', [message(events)]);

    // Assess
    const items = written();
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(Buffer.byteLength(item.SK)).toBeLessThanOrEqual(1024);
      expect(Buffer.byteLength(item.PK)).toBeLessThanOrEqual(2048);
    }
    expect(items.map((item) => item.SK)).toEqual(['fine']);
  });
});
