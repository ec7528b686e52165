import { storeGroups } from '../../../functions/consumer/groups';
import type { MessageEvents } from '../../../functions/consumer/types';
import { readGroup } from '../../../functions/shared/db/groups';
import { keys } from '../../../functions/shared/db/keys';
import type { StoredEvent } from '../../../functions/shared/domain/event';
import * as properties from '../../../functions/shared/domain/properties';
import { DynaliteTables } from '../../helpers/dynalite-tables';

// The copying update, counted (it still runs): each call copies a group's properties, stamps and
// tombstones.
jest.mock('../../../functions/shared/domain/properties', () => {
  const actual = jest.requireActual<typeof properties>('../../../functions/shared/domain/properties');
  return { ...actual, applyTimedPropertyUpdates: jest.fn(actual.applyTimedPropertyUpdates) };
});

const projectId = 7;
let fake: DynaliteTables;
let sequence = 0;

beforeEach(async () => {
  fake = await DynaliteTables.start(['main']);
});

afterEach(async () => {
  await fake.stop();
});

function groupIdentify(
  timestamp: string,
  properties: Record<string, unknown>,
  event = '$groupidentify',
): StoredEvent {
  return {
    uuid: `018e0000-0000-7000-8000-${String(++sequence).padStart(12, '0')}`,
    projectId,
    event,
    distinctId: 'user',
    properties: { $group_type: 'company', $group_key: 'acme', ...properties },
    timestamp,
    elementsChain: '',
    createdAt: timestamp,
  };
}

const message = (messageId: string, events: StoredEvent[]): MessageEvents => ({
  messageId,
  projectId,
  events,
});

const acme = () => readGroup('main', projectId, 'company', 'acme');

describe('groups from $groupidentify (consumer/groups.ts)', () => {
  it('sets properties by event time, whatever order the batches come in, and a replay writes nothing', async () => {
    const later = message('m-2', [
      groupIdentify('2024-03-01T12:00:02.000Z', { $group_set: { plan: 'pro', seats: 5 } }),
    ]);
    const earlier = message('m-1', [
      groupIdentify('2024-03-01T12:00:01.000Z', { $group_set: { plan: 'free', region: 'eu' } }),
    ]);

    expect(await storeGroups('main', [later])).toEqual(new Map());
    expect(await storeGroups('main', [earlier])).toEqual(new Map());
    const stored = await acme();
    expect(stored).toMatchObject({
      groupType: 'company',
      groupKey: 'acme',
      createdAt: '2024-03-01T12:00:01.000Z',
      properties: { plan: 'pro', seats: 5, region: 'eu' },
      version: 2,
    });

    const writes = fake.writes.length;
    await storeGroups('main', [later, earlier]);
    // The same values sent again later only refresh their times: no write either.
    await storeGroups('main', [
      message('m-3', [
        groupIdentify('2024-03-01T12:00:09.000Z', { $group_set: { plan: 'pro', region: 'eu' } }),
      ]),
    ]);
    expect(fake.writes.length).toBe(writes);
  });

  it('applies the events of one batch in one write, and ignores other events and keyless ones', async () => {
    await storeGroups('main', [
      message('m-1', [
        groupIdentify('2024-03-01T12:00:01.000Z', { $group_set: { a: 1 } }),
        groupIdentify('2024-03-01T12:00:02.000Z', { $group_set: { b: 2 } }),
        groupIdentify('2024-03-01T12:00:03.000Z', { $group_set: { c: 3 } }, '$pageview'),
        groupIdentify('2024-03-01T12:00:03.000Z', { $group_key: null, $group_set: { d: 4 } }),
      ]),
    ]);
    expect(fake.writes.map((write) => write.key)).toEqual([
      `${keys.group(projectId, 'company', 'acme').PK} GROUP`,
    ]);
    expect((await acme())?.properties).toEqual({ a: 1, b: 2 });
  });

  it('keeps a group writable: an update past the size cap is dropped, the others applied', async () => {
    const failures = await storeGroups('main', [
      message('m-1', [
        groupIdentify('2024-03-01T12:00:01.000Z', { $group_set: { big: 'x'.repeat(400_000) } }),
        groupIdentify('2024-03-01T12:00:02.000Z', { $group_set: { small: true } }),
      ]),
    ]);
    expect(failures).toEqual(new Map());
    expect((await acme())?.properties).toEqual({ small: true });
  });

  it('re-reads and keeps both updates when another consumer writes the group in between', async () => {
    await storeGroups('main', [
      message('m-0', [groupIdentify('2024-03-01T12:00:00.000Z', { $group_set: { first: true } })]),
    ]);
    let raced = false;
    fake.failWrite = async () => {
      if (raced) return undefined;
      raced = true;
      await storeGroups('main', [
        message('m-other', [groupIdentify('2024-03-01T12:00:05.000Z', { $group_set: { theirs: 1 } })]),
      ]);
      return undefined;
    };
    const failures = await storeGroups('main', [
      message('m-1', [groupIdentify('2024-03-01T12:00:01.000Z', { $group_set: { ours: 1 } })]),
    ]);
    expect(failures).toEqual(new Map());
    expect(await acme()).toMatchObject({ properties: { first: true, theirs: 1, ours: 1 }, version: 3 });
    expect(fake.writes.filter((write) => write.conditionFailed)).toHaveLength(1);
  });

  it('copies the group once, not once per event', async () => {
    // Prepare: a group of 1,000 keys.
    const keys = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`key${i}`, `value ${i}`]));
    expect(
      await storeGroups('main', [
        {
          messageId: 'm-1',
          projectId,
          events: [groupIdentify('2024-03-01T12:00:00.000Z', { $group_set: keys })],
        },
      ]),
    ).toEqual(new Map());
    const copies = jest.mocked(properties.applyTimedPropertyUpdates);
    copies.mockClear();

    // Act: counted, not timed. Before, each event copied the whole group (300 copies of 1,000 keys
    // here; 1.5 ms an event for a group of 3,000 keys, 15 s for a batch of 10,000 such events).
    const events = Array.from({ length: 300 }, (_, i) =>
      groupIdentify(new Date(Date.UTC(2024, 2, 1, 12, 0, 1 + i)).toISOString(), {
        $group_set: { plan: `plan ${i}` },
      }),
    );
    expect(await storeGroups('main', [{ messageId: 'm-2', projectId, events }])).toEqual(new Map());

    // Assess
    expect(copies).toHaveBeenCalledTimes(1);
    const stored = await acme();
    expect(stored?.properties).toEqual({ ...keys, plan: 'plan 299' });
  });
});
