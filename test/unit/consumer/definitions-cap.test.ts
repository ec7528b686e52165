import { SeenTodayCache, recordDefinitions } from '../../../functions/consumer/definitions';
import type { MessageEvents } from '../../../functions/consumer/types';
import { getEventDefinitionById } from '../../../functions/shared/db/definitions';
import { keys } from '../../../functions/shared/db/keys';
import type { StoredEvent } from '../../../functions/shared/domain/event';
import { eventDefinitionIdFor } from '../../../functions/shared/domain/definitions';
import { DynaliteTables } from '../../helpers/dynalite-tables';

/**
 * Event definitions grow with the names clients send: a project holds at most a fixed number, and a
 * definition is found by id without reading the others. Against embedded dynalite.
 */
let fake: DynaliteTables;
beforeAll(async () => {
  fake = await DynaliteTables.start(['main']);
});
afterAll(async () => {
  await fake.stop();
});

const projectId = 5;
const now = new Date('2026-11-24T12:00:00.000Z');
let messages = 0;

const batchNamed = (names: readonly string[]): MessageEvents[] => {
  messages += 1;
  return [
    {
      messageId: `m-${messages}`,
      projectId,
      events: names.map((name, i): StoredEvent => ({
        uuid: `00000000-0000-4000-8000-${String(messages * 1000 + i).padStart(12, '0')}`,
        projectId,
        event: name,
        distinctId: 'd',
        properties: {},
        timestamp: now.toISOString(),
        elementsChain: '',
        createdAt: now.toISOString(),
      })),
    },
  ];
};

const definitionNames = async () =>
  [...(await fake.items('main')).values()]
    .filter((item) => String(item.SK).startsWith('EVDEF#'))
    .map((item) => item.name as string)
    .sort();

describe('event definitions: bounded per project, found by id', () => {
  it('creates no definition beyond the cap, and fails no message for it', async () => {
    // Act: a cap of 3; five new names, then two more in a later batch (another container).
    const first = await recordDefinitions(
      'main',
      batchNamed(['a', 'b', 'c', 'd', 'e']),
      now,
      new SeenTodayCache(),
      3,
    );
    const second = await recordDefinitions('main', batchNamed(['f', 'g', 'a']), now, new SeenTodayCache(), 3);

    // Assess
    expect([...first.keys(), ...second.keys()]).toEqual([]);
    expect(await definitionNames()).toEqual(['a', 'b', 'c']);
    expect((await fake.items('main')).get(`PROJECT#${projectId} EVDEFCOUNT`)).toMatchObject({ count: 3 });
  });

  it('finds a definition by id with one index query and one read, whatever the project holds', async () => {
    // Prepare
    const id = eventDefinitionIdFor(projectId, 'b');
    fake.mock.resetHistory();

    // Act
    const found = await getEventDefinitionById('main', projectId, id);
    const unknown = await getEventDefinitionById('main', projectId, eventDefinitionIdFor(projectId, 'zzz'));

    // Assess
    expect(found).toMatchObject({ ...keys.eventDefinition(projectId, 'b'), id, name: 'b' });
    expect(unknown).toBeUndefined();
    const calls = fake.mock
      .calls()
      .map((call) => (call.args[0] as { constructor: { name: string } }).constructor.name);
    expect(calls).toEqual(['QueryCommand', 'GetCommand', 'QueryCommand']);
  });
});
