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
});
