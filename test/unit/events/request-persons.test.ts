import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { processPersons } from '../../../functions/consumer/persons';
import type { MessageEvents } from '../../../functions/consumer/types';
import { RequestPersons } from '../../../functions/events/request-persons';
import { getPersonByDistinctId } from '../../../functions/shared/db/persons';
import type { StoredEvent } from '../../../functions/shared/domain/event';
import { DynaliteTables } from '../../helpers/dynalite-tables';

/**
 * The persons of a page of events, as the events API reads them: the same live person the distinct
 * id's mapping leads to (`getPersonByDistinctId`, the oracle), whichever way a person came about
 * (created for the distinct id, joined by `$identify`, merged away), and without reading the mapping
 * of a distinct id its person was created for.
 */
const projectId = 7;
let fake: DynaliteTables;

beforeEach(async () => {
  fake = await DynaliteTables.start(['main']);
});

afterEach(async () => {
  await fake.stop();
});

let sequence = 0;
function stored(distinctId: string, event: string, properties: Record<string, unknown>): StoredEvent {
  sequence += 1;
  return {
    uuid: `018e0000-0000-7000-8000-${String(sequence).padStart(12, '0')}`,
    projectId,
    event,
    distinctId,
    properties,
    timestamp: new Date(Date.UTC(2024, 2, 1, 12, 0, sequence)).toISOString(),
    elementsChain: '',
    createdAt: '2024-03-01T13:00:00.000Z',
  };
}

/** Each event in a message of its own, in order (a person's later events see its earlier ones). */
async function ingest(events: readonly StoredEvent[]): Promise<void> {
  for (const [n, event] of events.entries()) {
    const message: MessageEvents = { messageId: `m${n}`, projectId, events: [event] };
    expect((await processPersons('main', [message])).size).toBe(0);
  }
}

/** The keys of every BatchGetItem since `reset`, by their PK's prefix. */
function keysRead(prefix: string): string[] {
  return fake.mock
    .commandCalls(BatchGetCommand)
    .flatMap((call) => Object.values(call.args[0].input.RequestItems ?? {}))
    .flatMap((request) => (request.Keys ?? []).map((key) => String(key.PK)))
    .filter((pk) => pk.startsWith(`${prefix}#`));
}

/** What the events API shows of the person the mapping leads to. */
async function oracle(distinctId: string) {
  const person = await getPersonByDistinctId('main', projectId, distinctId);
  return (
    person && {
      uuid: person.uuid,
      distinctIds: person.distinctIds,
      isIdentified: person.isIdentified,
      properties: person.properties,
    }
  );
}

describe('the persons of a page of events', () => {
  it('gives each distinct id the live person its mapping leads to: created for it, joined by $identify, merged, or none', async () => {
    // Prepare: a, b and c get persons of their own; u joins b's person by $identify; then m's
    // person is merged into c's (m's derived person becomes a forwarding item).
    await ingest([
      stored('a', 'pageview', { $set: { plan: 'free' } }),
      stored('b', 'pageview', { $set: { plan: 'pro' } }),
      stored('c', 'pageview', { $set: { team: 'x' } }),
      stored('u', '$identify', { $anon_distinct_id: 'b', $set: { email: 'u@example.com' } }),
      stored('m', 'pageview', { $set: { visits: 1 } }),
      stored('c', '$merge_dangerously', { alias: 'm' }),
    ]);
    const distinctIds = ['a', 'b', 'c', 'u', 'm', 'nobody'];

    // Act
    const persons = await new RequestPersons('main', projectId).of(distinctIds);

    // Assess
    for (const distinctId of distinctIds) expect(persons.get(distinctId)).toEqual(await oracle(distinctId));
    expect(persons.get('u')?.uuid).toBe(persons.get('b')?.uuid);
    expect(persons.get('m')?.uuid).toBe(persons.get('c')?.uuid);
    expect(persons.get('nobody')).toBeUndefined();
  });

  it('reads no mapping of a distinct id whose person was created for it', async () => {
    // Prepare
    const distinctIds = Array.from({ length: 150 }, (_, n) => `visitor-${n}`);
    await ingest(
      distinctIds.map((distinctId) => stored(distinctId, 'pageview', { $set: { n: distinctId } })),
    );
    fake.mock.resetHistory();

    // Act
    const persons = await new RequestPersons('main', projectId).of(distinctIds);

    // Assess: one person item each, nothing else.
    expect(distinctIds.map((distinctId) => persons.get(distinctId)?.properties)).toEqual(
      distinctIds.map((distinctId) => ({ n: distinctId })),
    );
    expect(keysRead('DID')).toEqual([]);
    expect(keysRead('PERSON')).toHaveLength(150);
  });

  it('reads the person of a distinct id that joined it by $identify through its mapping in one request, by the person item alone in the next', async () => {
    // Prepare: member joins anon-7's person.
    await ingest([
      stored('anon-7', 'pageview', { $set: { plan: 'free' } }),
      stored('member', '$identify', { $anon_distinct_id: 'anon-7', $set: { email: 'm@example.com' } }),
    ]);
    fake.mock.resetHistory();

    // Act: two requests in one container.
    const first = await new RequestPersons('main', projectId).of(['member']);
    const mappingsFirst = keysRead('DID');
    fake.mock.resetHistory();
    const second = await new RequestPersons('main', projectId).of(['member']);
    const mappingsSecond = keysRead('DID');
    const personsSecond = keysRead('PERSON');

    // Assess
    expect(first.get('member')).toEqual(await oracle('member'));
    expect(second.get('member')).toEqual(await oracle('member'));
    expect(mappingsFirst).toEqual(['DID#7#member']);
    expect(mappingsSecond).toEqual([]);
    expect(personsSecond).toEqual([`PERSON#7#${second.get('member')!.uuid}`]);
  });

  it('gives the person the mapping leads to now when the person a distinct id was found at before was merged away', async () => {
    // Prepare: joiner joins anon-8's person, is found there, then that person is merged into keeper's.
    await ingest([
      stored('anon-8', 'pageview', { $set: { plan: 'free' } }),
      stored('joiner', '$identify', { $anon_distinct_id: 'anon-8' }),
      stored('keeper', 'pageview', { $set: { plan: 'pro' } }),
    ]);
    const before = await new RequestPersons('main', projectId).of(['joiner']);
    await ingest([stored('keeper', '$merge_dangerously', { alias: 'joiner' })]);

    // Act
    const after = await new RequestPersons('main', projectId).of(['joiner', 'keeper']);

    // Assess
    expect(after.get('joiner')).toEqual(await oracle('joiner'));
    expect(after.get('joiner')?.uuid).not.toBe(before.get('joiner')?.uuid);
    expect(after.get('joiner')?.uuid).toBe(after.get('keeper')?.uuid);
  });
});
