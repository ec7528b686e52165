import { storeGroups } from '../../../functions/consumer/groups';
import { readGroup } from '../../../functions/shared/db/groups';
import type { StoredEvent } from '../../../functions/shared/domain/event';
import * as properties from '../../../functions/shared/domain/properties';
import { DynaliteTables } from '../../helpers/dynalite-tables';

// The copying update, counted: each call copies the group's properties, stamps and tombstones.
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

function groupIdentify(second: number, set: Record<string, unknown>): StoredEvent {
  const timestamp = new Date(Date.UTC(2024, 2, 1, 12, 0, second)).toISOString();
  return {
    uuid: `018e0000-0000-7000-8000-${String(++sequence).padStart(12, '0')}`,
    projectId,
    event: '$groupidentify',
    distinctId: 'user',
    properties: { $group_type: 'company', $group_key: 'acme', $group_set: set },
    timestamp,
    elementsChain: '',
    createdAt: timestamp,
  };
}

describe('a group with many $groupidentify events in one batch (consumer/groups.ts)', () => {
  it('copies the group once, not once per event', async () => {
    // Prepare: a group of 1,000 keys.
    const keys = Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`key${i}`, `value ${i}`]));
    expect(
      await storeGroups('main', [{ messageId: 'm-1', projectId, events: [groupIdentify(0, keys)] }]),
    ).toEqual(new Map());
    const copies = jest.mocked(properties.applyTimedPropertyUpdates);
    copies.mockClear();

    // Act: counted, not timed. Before, each event copied the whole group (300 copies of 1,000 keys
    // here; 1.5 ms an event for a group of 3,000 keys, 15 s for a batch of 10,000 such events).
    const events = Array.from({ length: 300 }, (_, i) => groupIdentify(1 + i, { plan: `plan ${i}` }));
    expect(await storeGroups('main', [{ messageId: 'm-2', projectId, events }])).toEqual(new Map());

    // Assess
    expect(copies).toHaveBeenCalledTimes(1);
    const stored = await readGroup('main', projectId, 'company', 'acme');
    expect(stored?.properties).toEqual({ ...keys, plan: 'plan 299' });
  });
});
