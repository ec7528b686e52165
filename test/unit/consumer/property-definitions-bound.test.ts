import { LRUCache } from 'lru-cache';
import {
  PropertyDefinitionRecorder,
  maxNewPerInvocation,
} from '../../../functions/consumer/property-definitions';
import type { MessageEvents } from '../../../functions/consumer/types';
import type { StoredEvent } from '../../../functions/shared/domain/event';
import { DynaliteTables } from '../../helpers/dynalite-tables';

/**
 * A batch of hostile events, each carrying thousands of new property names, must not hold the consumer
 * for its timeout: one invocation writes a bounded number of new definitions per project, and the rest
 * are written when seen again. Against embedded dynalite.
 */
let fake: DynaliteTables;
beforeAll(async () => {
  fake = await DynaliteTables.start(['main']);
});
afterAll(async () => {
  await fake.stop();
});

const projectId = 9;
const now = new Date('2026-11-27T07:00:00.000Z');

const batchWith = (properties: Record<string, unknown>, message: string): MessageEvents[] => [
  {
    messageId: message,
    projectId,
    events: [
      {
        uuid: `00000000-0000-4000-8000-${message.padStart(12, '0')}`,
        projectId,
        event: 'flood',
        distinctId: 'd',
        properties,
        timestamp: now.toISOString(),
        elementsChain: '',
        createdAt: now.toISOString(),
      } satisfies StoredEvent,
    ],
  },
];

const writes = (): number => fake.writes.length;

describe('property definitions: bounded work per invocation', () => {
  it('writes at most a bounded number of new definitions per batch, and the others when seen again', async () => {
    // Prepare: one event with 3,000 new property names.
    const properties = Object.fromEntries(Array.from({ length: 3_000 }, (_, i) => [`p${i}`, i]));
    const recorder = new PropertyDefinitionRecorder();
    fake.resetWrites();

    // Act
    const failed = await recorder.record('main', batchWith(properties, '1'), now);
    const firstWrites = writes();
    const definitionsAfterFirst = [...(await fake.items('main')).keys()].filter((key) =>
      key.includes(' PROPDEF#'),
    ).length;
    await recorder.record('main', batchWith(properties, '2'), now);

    // Assess: no message failed; the first batch wrote a bounded number (definitions, pairs, counts),
    // the second the next ones.
    expect(failed.size).toBe(0);
    expect(firstWrites).toBeLessThanOrEqual(2 * maxNewPerInvocation + 10);
    expect(definitionsAfterFirst).toBe(maxNewPerInvocation);
    const definitionsAfterSecond = [...(await fake.items('main')).keys()].filter((key) =>
      key.includes(' PROPDEF#'),
    ).length;
    expect(definitionsAfterSecond).toBe(2 * maxNewPerInvocation);
  });

  it('looks each known name up once per batch, not once per event that carries it', async () => {
    // Prepare: 20 names recorded once; then a batch of 500 events carrying the same names.
    const properties = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`known${i}`, i]));
    const recorder = new PropertyDefinitionRecorder();
    await recorder.record('main', batchWith(properties, '3'), now);
    const events = Array.from({ length: 500 }, (_, i) => ({
      ...batchWith(properties, String(100 + i))[0]!.events[0]!,
    }));
    const lookups = jest.spyOn(LRUCache.prototype, 'has');
    fake.resetWrites();

    // Act
    const failed = await recorder.record('main', [{ messageId: 'm', projectId, events }], now);

    // Assess: one lookup per definition and one per event/property pair, and nothing written.
    const counted = lookups.mock.calls.length;
    lookups.mockRestore();
    expect(failed.size).toBe(0);
    expect(writes()).toBe(0);
    expect(counted).toBe(2 * 20);
  });

  it('makes no list of pairs of each event’s properties (Object.entries) to look at them', async () => {
    // Prepare: 21 names recorded once; then a batch of 200 events carrying the same names.
    const properties = {
      ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`listed${i}`, i])),
      $set: { plan: 'pro' },
    };
    const recorder = new PropertyDefinitionRecorder();
    await recorder.record('main', batchWith(properties, '4'), now);
    const events = Array.from({ length: 200 }, (_, i) => ({
      ...batchWith(properties, String(1_000 + i))[0]!.events[0]!,
    }));
    const entries = jest.spyOn(Object, 'entries');

    // Act
    let listed: number;
    try {
      await recorder.record('main', [{ messageId: 'm', projectId, events }], now);
      listed = entries.mock.calls.length;
    } finally {
      entries.mockRestore();
    }

    // Assess
    expect(listed).toBe(0);
  });
});
