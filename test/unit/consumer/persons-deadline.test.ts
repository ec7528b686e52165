import { ingestRecords, newConsumerMemory, personsReserveMs } from '../../../functions/consumer/ingest';
import { processPersons } from '../../../functions/consumer/persons';
import type { MessageEvents } from '../../../functions/consumer/types';
import { getPersonByDistinctId } from '../../../functions/shared/db/persons';
import type { StoredEvent } from '../../../functions/shared/domain/event';
import { captureRecord } from '../../helpers/capture-records';
import { DynaliteTables } from '../../helpers/dynalite-tables';

/**
 * The persons stage within the invocation's time: a new user costs about four requests, so a message
 * of thousands of new users (bench/fuzz sends one of 2,000) took the consumer past its 30 s timeout.
 * Once out of time the stage starts no further group: their messages come back as batch item
 * failures, and a later delivery writes the rest.
 */
const projectId = 7;
let fake: DynaliteTables;

beforeEach(async () => {
  fake = await DynaliteTables.start(['main', 'events']);
});

afterEach(async () => {
  await fake.stop();
});

let sequence = 0;
function storedEvent(distinctId: string): StoredEvent {
  return {
    uuid: `018e0000-0000-7000-8000-${String(++sequence).padStart(12, '0')}`,
    projectId,
    event: 'signed up',
    distinctId,
    properties: { $set: { plan: 'pro' } },
    timestamp: '2024-03-01T12:00:00.000Z',
    elementsChain: '',
    createdAt: '2024-03-01T12:00:01.000Z',
  };
}

const message = (messageId: string, distinctIds: readonly string[]): MessageEvents => ({
  messageId,
  projectId,
  events: distinctIds.map(storedEvent),
});

const personOf = (distinctId: string) => getPersonByDistinctId('main', projectId, distinctId);

describe('the persons stage out of time', () => {
  it('starts no group once out of time, fails only the messages of groups not started, and a replay writes them', async () => {
    // Prepare: the stage checks the time before each attempt and each group; the fourth check is late.
    const messages = [message('m1', ['a']), message('m2', ['b']), message('m3', ['c', 'd'])];
    let checks = 0;
    // Act
    const failed = await processPersons('main', messages, undefined, () => ++checks > 3);
    // Assess: the groups of a and b started before it; those of c and d did not.
    expect([...failed.keys()]).toEqual(['m3']);
    expect(failed.get('m3')?.name).toBe('PersonsOutOfTime');
    expect((await personOf('a'))?.properties).toEqual({ plan: 'pro' });
    expect((await personOf('b'))?.properties).toEqual({ plan: 'pro' });
    expect(await personOf('c')).toBeUndefined();
    expect(await personOf('d')).toBeUndefined();

    // The message delivered again, with time: the rest is written.
    expect((await processPersons('main', [messages[2]!])).size).toBe(0);
    expect((await personOf('c'))?.properties).toEqual({ plan: 'pro' });
    expect((await personOf('d'))?.properties).toEqual({ plan: 'pro' });
  });

  it('writes the users of the batch’s small messages before those of a large one, so time running out fails only the large one', async () => {
    // Prepare: a message of five new users, then one of a single user; time for one group only.
    const messages = [message('large', ['x1', 'x2', 'x3', 'x4', 'x5']), message('small', ['s'])];
    let checks = 0;
    // Act
    const failed = await processPersons('main', messages, undefined, () => ++checks > 2);
    // Assess
    expect([...failed.keys()]).toEqual(['large']);
    expect((await personOf('s'))?.properties).toEqual({ plan: 'pro' });
    expect(await personOf('x1')).toBeUndefined();
  });

  it('answers a batch whose deadline leaves the later stages too little time with its messages failed, storing none of their events', async () => {
    // Prepare: a message of 50 new users, in an invocation with less than the reserve left.
    const record = captureRecord(
      projectId,
      'big',
      Array.from({ length: 50 }, (_, i) => ({ event: 'signed up', distinctId: `user-${i}` })),
    );
    const deadline = Date.now() + personsReserveMs - 1_000;
    // Act
    const response = await ingestRecords(
      [record],
      { eventsTable: 'events', singleTable: 'main' },
      newConsumerMemory(),
      new Date('2024-03-01T12:00:05.000Z'),
      deadline,
    );
    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'big' }]);
    expect((await fake.items('events')).size).toBe(0);
    expect(await personOf('user-0')).toBeUndefined();
  });
});
