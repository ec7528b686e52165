import { toPersonItem } from '../../../functions/shared/db/persons';
import type { StoredEvent } from '../../../functions/shared/domain/event';
import type {
  LoadedPersons,
  Person,
  PersonChanges,
  PersonEvent,
} from '../../../functions/shared/domain/persons';
import {
  personLimits,
  storedSizeAfter,
  storedSizeOf,
  updateGrowthBytes,
} from '../../../functions/shared/domain/person-limits';
import {
  applyPropertyUpdates,
  applyTimedPropertyUpdates,
  defineOwn,
  sameJson,
  type TimedProperties,
} from '../../../functions/shared/domain/properties';
import {
  distinctIdsOf,
  groupByPerson,
  personEventOf,
  personUuidFor,
  PersonWorkspace,
} from '../../../functions/shared/domain/persons';

const projectId = 2;
let clock = 0;

function stored(
  event: string,
  distinctId: string,
  properties: Record<string, unknown> = {},
  timestamp?: string,
): StoredEvent {
  clock += 1;
  return {
    uuid: `00000000-0000-4000-8000-${String(clock).padStart(12, '0')}`,
    projectId,
    event,
    distinctId,
    properties,
    timestamp: timestamp ?? new Date(Date.UTC(2024, 2, 1, 12, 0, clock)).toISOString(),
    elementsChain: '',
    createdAt: '2024-03-01T12:00:00.000Z',
  };
}

const personEvent = (...args: Parameters<typeof stored>): PersonEvent => personEventOf(stored(...args))!;

/** `run()`'s result and the characters of JSON text it wrote (JSON.stringify): work counted, not timed. */
function countingJsonText<T>(run: () => T): { result: T; characters: number } {
  const stringify = jest.spyOn(JSON, 'stringify');
  try {
    const result = run();
    let characters = 0;
    for (const { value } of stringify.mock.results) if (typeof value === 'string') characters += value.length;
    return { result, characters };
  } finally {
    stringify.mockRestore();
  }
}

/**
 * A store as the consumer writes it: the writes of `changes()` in the documented order, each with its
 * condition; `budget` stops after that many writes, as a consumer dying mid-batch would.
 */
class Store {
  readonly distinctIds = new Map<string, string>();
  readonly persons = new Map<string, Person>();

  loaded(): LoadedPersons {
    return { distinctIds: new Map(this.distinctIds), persons: new Map(this.persons) };
  }

  write(changes: PersonChanges, budget = Infinity): 'done' | 'conflict' | 'stopped' {
    const steps: (() => boolean)[] = [
      ...changes.claims.map((claim) => () => {
        if (this.distinctIds.has(claim.distinctId)) return false;
        this.distinctIds.set(claim.distinctId, claim.personUuid);
        return true;
      }),
      ...[...changes.merged, ...changes.persons].map((change) => () => {
        const current = this.persons.get(change.person.uuid);
        if (
          change.expectedVersion === undefined
            ? current !== undefined
            : current?.version !== change.expectedVersion
        ) {
          return false;
        }
        this.persons.set(change.person.uuid, change.person);
        return true;
      }),
      ...changes.absorbed.map((merged) => () => {
        const current = this.persons.get(merged.personUuid);
        if (current?.mergedInto === merged.mergedInto) {
          this.persons.set(merged.personUuid, {
            ...current,
            absorbed: true,
            properties: {},
            propertyStamps: {},
            unsetTimes: {},
          });
        }
        return true;
      }),
      ...changes.repoints.map((move) => () => {
        if (this.distinctIds.get(move.distinctId) === move.from)
          this.distinctIds.set(move.distinctId, move.to);
        return true;
      }),
    ];
    for (const [index, step] of steps.entries()) {
      if (index >= budget) return 'stopped';
      if (!step()) return 'conflict';
    }
    return 'done';
  }

  /** Runs events as the consumer does: group, apply, write; re-read and re-run on conflicts. */
  run(events: readonly PersonEvent[], budget = Infinity): PersonWorkspace[] {
    const workspaces: PersonWorkspace[] = [];
    let pending = [...events];
    for (let attempt = 0; pending.length > 0 && attempt < 4; attempt++) {
      const loaded = this.loaded();
      const conflicting: PersonEvent[] = [];
      for (const group of groupByPerson(pending, loaded)) {
        const workspace = new PersonWorkspace(projectId, loaded);
        for (const event of group) workspace.apply(event);
        workspaces.push(workspace);
        const outcome = this.write(workspace.changes(), budget);
        if (outcome === 'stopped') return workspaces;
        if (outcome === 'conflict') conflicting.push(...group);
      }
      pending = conflicting;
    }
    return workspaces;
  }

  /** Live person of a distinct id, following merged persons. */
  personOf(distinctId: string): Person | undefined {
    let uuid = this.distinctIds.get(distinctId);
    for (let hop = 0; uuid !== undefined && hop < 10; hop++) {
      const person = this.persons.get(uuid);
      if (!person || person.mergedInto === undefined) return person;
      uuid = person.mergedInto;
    }
    return undefined;
  }

  /** What a reader sees, independent of versions and of how far forwarding items were cleaned up. */
  view(distinctIds: readonly string[]): Record<string, unknown> {
    return Object.fromEntries(
      distinctIds.map((distinctId) => {
        const person = this.personOf(distinctId);
        return [
          distinctId,
          person && {
            uuid: person.uuid,
            properties: person.properties,
            isIdentified: person.isIdentified,
            createdAt: person.createdAt,
            distinctIds: [...person.distinctIds].sort(),
          },
        ];
      }),
    );
  }
}

describe('personEventOf', () => {
  it('skips events sent with $process_person_profile: false', () => {
    expect(personEventOf(stored('$pageview', 'anon', { $process_person_profile: false }))).toBeUndefined();
  });

  it('reads $set, $set_once and $unset of the event', () => {
    expect(personEvent('e', 'u', { $set: { a: 1 }, $set_once: { b: 2 }, $unset: ['c'] }).updates).toEqual({
      set: { a: 1 },
      setOnce: { b: 2 },
      unset: ['c'],
    });
  });

  it('merges $anon_distinct_id on $identify, and alias on $create_alias and $merge_dangerously', () => {
    expect(personEvent('$identify', 'u', { $anon_distinct_id: 'anon' }).mergeFrom).toBe('anon');
    expect(personEvent('$create_alias', 'u', { alias: 'other' }).mergeFrom).toBe('other');
    expect(personEvent('$merge_dangerously', 'u', { alias: 'other' }).mergeFrom).toBe('other');
    expect(
      personEvent('$pageview', 'u', { alias: 'other', $anon_distinct_id: 'anon' }).mergeFrom,
    ).toBeUndefined();
    expect(personEvent('$create_alias', 'u', { alias: '' }).mergeFrom).toBeUndefined();
  });

  it('stringifies a non-string merge id as PostHog does, so an object becomes an illegal id', () => {
    expect(personEvent('$identify', 'u', { $anon_distinct_id: { a: 1 } }).mergeFrom).toBe('[object Object]');
    expect(personEvent('$identify', 'u', { $anon_distinct_id: null }).mergeFrom).toBe('null');
    expect(personEvent('$create_alias', 'u', { alias: 42 }).mergeFrom).toBe('42');
  });

  it('cuts a merge id to 200 characters like any distinct id', () => {
    expect(personEvent('$create_alias', 'u', { alias: 'a'.repeat(300) }).mergeFrom).toHaveLength(200);
  });
});

describe('personUuidFor', () => {
  it('derives the same uuid v5 from the same project and distinct id, and different ones otherwise', () => {
    expect(personUuidFor(2, 'user-1')).toBe(personUuidFor(2, 'user-1'));
    expect(personUuidFor(2, 'user-1')).not.toBe(personUuidFor(3, 'user-1'));
    expect(personUuidFor(2, 'user-1')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});

describe('PersonWorkspace', () => {
  const empty: LoadedPersons = { distinctIds: new Map(), persons: new Map() };

  it('creates a person for a new distinct id with the event’s $set and $set_once, unidentified, created at the event', () => {
    const workspace = new PersonWorkspace(projectId, empty);
    const event = personEvent('$pageview', 'anon-1', { $set: { plan: 'free' }, $set_once: { first: 'a' } });
    workspace.apply(event);
    expect(workspace.changes()).toEqual({
      claims: [{ distinctId: 'anon-1', personUuid: personUuidFor(projectId, 'anon-1') }],
      merged: [],
      persons: [
        {
          person: {
            uuid: personUuidFor(projectId, 'anon-1'),
            createdAt: event.timestamp,
            isIdentified: false,
            properties: { first: 'a', plan: 'free' },
            propertyStamps: {
              first: { at: Date.parse(event.timestamp), once: true },
              plan: { at: Date.parse(event.timestamp), once: false },
            },
            unsetTimes: {},
            distinctIds: ['anon-1'],
            version: 1,
          },
          expectedVersion: undefined,
        },
      ],
      absorbed: [],
      repoints: [],
    });
  });

  it('applies a person’s events by key, making no list of pairs of their $set and $set_once', () => {
    // Prepare: a person's first event, then 50 more with updates (the first copies what was read).
    const workspace = new PersonWorkspace(projectId, empty);
    workspace.apply(personEvent('$pageview', 'u-keys', { $set: { plan: 'free' } }));
    const events = Array.from({ length: 50 }, (_, i) =>
      personEvent('$pageview', 'u-keys', { $set: { plan: `p${i}` }, $set_once: { first: i } }),
    );
    const entries = jest.spyOn(Object, 'entries');

    // Act
    let listed: number;
    try {
      for (const event of events) workspace.apply(event);
      listed = entries.mock.calls.length;
    } finally {
      entries.mockRestore();
    }

    // Assess
    expect(listed).toBe(0);
    expect(workspace.propertiesNow(personUuidFor(projectId, 'u-keys'))).toEqual({ plan: 'p49', first: 0 });
  });

  it("hands out one copy of a person's properties until they change, and never changes a copy", () => {
    // Arrange: a person whose events $set the same values (GeoIP's, on every event of a browser)
    const workspace = new PersonWorkspace(projectId, empty);
    const uuid = personUuidFor(projectId, 'u-copies');
    const same = { $geoip_city_name: 'Sydney', $geoip_country_code: 'AU' };

    // Act
    const copies = Array.from({ length: 20 }, () => {
      workspace.apply(personEvent('$pageview', 'u-copies', { $set: same }));
      return workspace.propertiesNow(uuid);
    });
    workspace.apply(personEvent('$pageview', 'u-copies', { $set: { ...same, $geoip_city_name: 'Perth' } }));
    const moved = workspace.propertiesNow(uuid);
    workspace.apply(personEvent('$pageview', 'u-copies', { $unset: ['$geoip_country_code'] }));
    const unset = workspace.propertiesNow(uuid);

    // Assess: one object for the 20 events that changed nothing; a new one after each change, and
    // the earlier copies as they were
    expect(new Set(copies).size).toBe(1);
    expect(copies[0]).toEqual(same);
    expect(moved).not.toBe(copies[0]);
    expect(moved).toEqual({ ...same, $geoip_city_name: 'Perth' });
    expect(unset).toEqual({ $geoip_city_name: 'Perth' });
    expect(copies[19]).toEqual(same);
  });

  it('coalesces many events of one distinct id into one claim and one person write', () => {
    const workspace = new PersonWorkspace(projectId, empty);
    for (let i = 0; i < 50; i++)
      workspace.apply(personEvent('$pageview', 'u', { $set: { n: i }, $set_once: { first: i } }));
    const changes = workspace.changes();
    expect(changes.claims).toHaveLength(1);
    expect(changes.persons).toHaveLength(1);
    expect(changes.persons[0]!.person.properties).toEqual({ first: 0, n: 49 });
  });

  it('writes nothing when events change nothing on an existing person', () => {
    const store = new Store();
    store.run([personEvent('$pageview', 'u', { $set: { plan: 'pro' } })]);
    const workspace = new PersonWorkspace(projectId, store.loaded());
    workspace.apply(personEvent('$pageview', 'u', { $set: { plan: 'pro' }, $set_once: { plan: 'free' } }));
    expect(workspace.changes()).toEqual({ claims: [], merged: [], persons: [], absorbed: [], repoints: [] });
  });

  it('updates an existing person at the version it read', () => {
    const store = new Store();
    store.run([personEvent('$pageview', 'u', { $set: { plan: 'free' } })]);
    const workspace = new PersonWorkspace(projectId, store.loaded());
    workspace.apply(personEvent('$pageview', 'u', { $set: { plan: 'pro' }, $unset: ['missing'] }));
    const [change] = workspace.changes().persons;
    expect(change!.expectedVersion).toBe(1);
    expect(change!.person.version).toBe(2);
    expect(change!.person.properties).toEqual({ plan: 'pro' });
  });

  it('marks the person identified on $identify even without $anon_distinct_id', () => {
    const store = new Store();
    store.run([personEvent('$identify', 'user@example.com', { $set: { email: 'user@example.com' } })]);
    expect(store.personOf('user@example.com')?.isIdentified).toBe(true);
  });

  describe('$identify', () => {
    it('adds the identified id to the anonymous person when only that one exists', () => {
      const store = new Store();
      store.run([personEvent('$pageview', 'anon', { $set_once: { $initial_browser: 'Chrome' } })]);
      store.run([
        personEvent('$identify', 'user', { $anon_distinct_id: 'anon', $set: { email: 'u@example.com' } }),
      ]);
      const person = store.personOf('user')!;
      expect(person.uuid).toBe(personUuidFor(projectId, 'anon'));
      expect(store.personOf('anon')).toEqual(person);
      expect(person.distinctIds).toEqual(['anon', 'user']);
      expect(person.isIdentified).toBe(true);
      expect(person.properties).toEqual({ $initial_browser: 'Chrome', email: 'u@example.com' });
    });

    it('adds the anonymous id to the identified person when only that one exists', () => {
      const store = new Store();
      store.run([personEvent('$pageview', 'user')]);
      store.run([personEvent('$identify', 'user', { $anon_distinct_id: 'anon' })]);
      expect(store.personOf('anon')?.uuid).toBe(personUuidFor(projectId, 'user'));
      expect(store.personOf('user')?.distinctIds).toEqual(['user', 'anon']);
    });

    it('creates one identified person with both ids when neither exists, its uuid from the event’s id', () => {
      const store = new Store();
      store.run([
        personEvent('$identify', 'user', { $anon_distinct_id: 'anon', $set: { email: 'u@example.com' } }),
      ]);
      const person = store.personOf('anon')!;
      expect(person).toEqual(store.personOf('user'));
      expect(person.uuid).toBe(personUuidFor(projectId, 'user'));
      expect(person.distinctIds).toEqual(['user', 'anon']);
      expect(person.isIdentified).toBe(true);
    });

    it('merges an unidentified anonymous person into the event’s person: its values win, oldest created_at', () => {
      const store = new Store();
      store.run([
        personEvent(
          '$pageview',
          'anon',
          { $set: { plan: 'free', color: 'red' } },
          '2024-03-01T10:00:00.000Z',
        ),
        personEvent('$pageview', 'user', { $set: { plan: 'pro' } }, '2024-03-01T11:00:00.000Z'),
      ]);
      // An anonymous person with a second distinct id that the merging batch does not mention.
      const anonUuid = personUuidFor(projectId, 'anon');
      store.distinctIds.set('anon-2', anonUuid);
      store.persons.set(anonUuid, { ...store.persons.get(anonUuid)!, distinctIds: ['anon', 'anon-2'] });
      store.run([
        personEvent('$identify', 'user', { $anon_distinct_id: 'anon', $set: { email: 'u@example.com' } }),
      ]);
      const person = store.personOf('user')!;
      expect(person.uuid).toBe(personUuidFor(projectId, 'user'));
      expect(person.properties).toEqual({ plan: 'pro', color: 'red', email: 'u@example.com' });
      expect(person.createdAt).toBe('2024-03-01T10:00:00.000Z');
      expect(person.isIdentified).toBe(true);
      expect([...person.distinctIds].sort()).toEqual(['anon', 'anon-2', 'user']);
      // Every distinct id was moved, and the merged person only forwards.
      expect(store.distinctIds.get('anon')).toBe(person.uuid);
      expect(store.distinctIds.get('anon-2')).toBe(person.uuid);
      expect(store.persons.get(personUuidFor(projectId, 'anon'))).toMatchObject({
        mergedInto: person.uuid,
        absorbed: true,
      });
    });

    it('refuses to merge a person that is already identified and leaves the event on its own person', () => {
      const store = new Store();
      store.run([
        personEvent('$identify', 'first-user'),
        personEvent('$pageview', 'second-user', { $set: { a: 1 } }),
      ]);
      const [workspace] = store.run([
        personEvent('$identify', 'second-user', { $anon_distinct_id: 'first-user' }),
      ]);
      expect(workspace!.warnings).toEqual([
        expect.objectContaining({
          type: 'cannot_merge_already_identified',
          details: { sourcePersonDistinctId: 'first-user', targetPersonDistinctId: 'second-user' },
        }),
      ]);
      expect(store.personOf('first-user')?.uuid).toBe(personUuidFor(projectId, 'first-user'));
      expect(store.personOf('second-user')).toMatchObject({
        uuid: personUuidFor(projectId, 'second-user'),
        isIdentified: true,
        distinctIds: ['second-user'],
      });
    });

    it('never merges on an illegal id, warns, and still identifies the event’s person', () => {
      const store = new Store();
      store.run([personEvent('$pageview', 'undefined'), personEvent('$pageview', 'user')]);
      const [workspace] = store.run([personEvent('$identify', 'user', { $anon_distinct_id: 'undefined' })]);
      expect(workspace!.warnings).toEqual([
        expect.objectContaining({
          type: 'cannot_merge_with_illegal_distinct_id',
          details: { illegalDistinctId: 'undefined', otherDistinctId: 'user' },
        }),
      ]);
      expect(store.personOf('user')).toMatchObject({ distinctIds: ['user'], isIdentified: true });
      expect(store.personOf('undefined')?.distinctIds).toEqual(['undefined']);
    });

    it('does nothing but identify when both ids already share a person', () => {
      const store = new Store();
      store.run([personEvent('$create_alias', 'user', { alias: 'anon' })]);
      const workspace = new PersonWorkspace(projectId, store.loaded());
      workspace.apply(personEvent('$identify', 'user', { $anon_distinct_id: 'anon' }));
      expect(workspace.changes()).toEqual({
        claims: [],
        merged: [],
        persons: [],
        absorbed: [],
        repoints: [],
      });
    });
  });

  describe('$create_alias and $merge_dangerously', () => {
    it('merges the alias person into the event’s person', () => {
      const store = new Store();
      store.run([
        personEvent('$pageview', 'a', { $set: { x: 'a' } }),
        personEvent('$pageview', 'b', { $set: { x: 'b', y: 'b' } }),
      ]);
      store.run([personEvent('$create_alias', 'a', { alias: 'b' })]);
      expect(store.personOf('b')).toMatchObject({
        uuid: personUuidFor(projectId, 'a'),
        properties: { x: 'a', y: 'b' },
      });
    });

    it('refuses $create_alias from an identified person but $merge_dangerously merges it', () => {
      const store = new Store();
      store.run([personEvent('$identify', 'a'), personEvent('$identify', 'b')]);
      store.run([personEvent('$create_alias', 'a', { alias: 'b' })]);
      expect(store.personOf('b')?.uuid).toBe(personUuidFor(projectId, 'b'));
      store.run([personEvent('$merge_dangerously', 'a', { alias: 'b' })]);
      expect(store.personOf('b')?.uuid).toBe(personUuidFor(projectId, 'a'));
    });
  });

  it('finishes a merge whose survivor write never happened: the forwarding person is absorbed again', () => {
    const store = new Store();
    store.run([
      personEvent('$pageview', 'anon', { $set: { color: 'red' } }),
      personEvent('$pageview', 'user'),
    ]);
    const merge = personEvent('$identify', 'user', { $anon_distinct_id: 'anon' });
    // Dies right after writing the forwarding item (claims: none; merged: 1).
    store.run([merge], 1);
    expect(store.persons.get(personUuidFor(projectId, 'anon'))).toMatchObject({ absorbed: false });
    expect(store.personOf('user')?.properties).toEqual({});
    // Any later event of either id completes it.
    store.run([personEvent('$pageview', 'anon')]);
    expect(store.personOf('user')).toMatchObject({ properties: { color: 'red' }, isIdentified: true });
    expect(store.distinctIds.get('anon')).toBe(personUuidFor(projectId, 'user'));
    expect(store.persons.get(personUuidFor(projectId, 'anon'))).toMatchObject({ absorbed: true });
  });

  it('moves the unread distinct ids of a person merged twice in one batch straight to the last survivor', () => {
    const store = new Store();
    store.run([personEvent('$pageview', 'a'), personEvent('$pageview', 'b'), personEvent('$pageview', 'c')]);
    const aUuid = personUuidFor(projectId, 'a');
    store.distinctIds.set('a-unread', aUuid);
    store.persons.set(aUuid, { ...store.persons.get(aUuid)!, distinctIds: ['a', 'a-unread'] });
    const workspace = new PersonWorkspace(projectId, store.loaded());
    workspace.apply(personEvent('$merge_dangerously', 'b', { alias: 'a' }));
    workspace.apply(personEvent('$merge_dangerously', 'c', { alias: 'b' }));
    expect(workspace.changes().repoints).toContainEqual({
      distinctId: 'a-unread',
      from: aUuid,
      to: personUuidFor(projectId, 'c'),
    });
    store.write(workspace.changes());
    expect(store.distinctIds.get('a-unread')).toBe(personUuidFor(projectId, 'c'));
    expect(store.personOf('a')?.distinctIds).toEqual(['c', 'b', 'a', 'a-unread']);
  });

  describe('replaying a batch after dying at any write', () => {
    const batch = (): PersonEvent[] => [
      personEvent('$pageview', 'anon', { $set_once: { $initial_browser: 'Chrome' }, $set: { plan: 'free' } }),
      personEvent('$pageview', 'other-anon', { $set: { seen: true } }),
      personEvent('$pageview', 'existing'),
      personEvent('$identify', 'user', { $anon_distinct_id: 'anon', $set: { email: 'u@example.com' } }),
      personEvent('$create_alias', 'user', { alias: 'other-anon' }),
      personEvent('$identify', 'existing', { $anon_distinct_id: 'old-anon' }),
      personEvent('$set', 'user', { $set: { plan: 'pro' }, $unset: ['seen'] }),
    ];
    const ids = ['anon', 'other-anon', 'user', 'existing', 'old-anon', 'before'];
    const seeded = (): Store => {
      const store = new Store();
      store.run([
        personEvent('$pageview', 'old-anon', { $set: { from: 'old' } }, '2024-03-01T09:00:00.000Z'),
        personEvent('$pageview', 'existing', {}, '2024-03-01T09:00:01.000Z'),
      ]);
      store.run([personEvent('$pageview', 'before', { $set: { keep: 1 } }, '2024-03-01T09:00:02.000Z')]);
      return store;
    };

    it('ends in the same state as a batch that never failed, wherever it stopped', () => {
      const clean = seeded();
      const events = batch();
      clean.run(events);
      const expected = clean.view(ids);
      let writes = 0;
      const counter = seeded();
      for (const workspace of counter.run(events)) {
        const changes = workspace.changes();
        writes +=
          changes.claims.length +
          changes.merged.length +
          changes.persons.length +
          changes.absorbed.length +
          changes.repoints.length;
      }
      expect(writes).toBeGreaterThan(5);
      for (let stopAfter = 0; stopAfter < writes; stopAfter++) {
        const store = seeded();
        store.run(events, stopAfter);
        store.run(events);
        expect({ stopAfter, view: store.view(ids) }).toEqual({ stopAfter, view: expected });
      }
    });

    it('changes nothing when a completed batch is delivered again', () => {
      const store = seeded();
      const events = batch();
      store.run(events);
      const loaded = store.loaded();
      for (const group of groupByPerson(events, loaded)) {
        const workspace = new PersonWorkspace(projectId, loaded);
        for (const event of group) workspace.apply(event);
        expect(workspace.changes()).toEqual({
          claims: [],
          merged: [],
          persons: [],
          absorbed: [],
          repoints: [],
        });
      }
    });
  });
});

describe('person properties, whatever order their events are processed in', () => {
  const at = (second: number): string => new Date(Date.UTC(2024, 3, 1, 12, 0, second)).toISOString();
  const update = (second: number, properties: Record<string, unknown>): PersonEvent =>
    personEvent('$set', 'u', properties, at(second));

  function permutations<T>(items: readonly T[]): T[][] {
    if (items.length <= 1) return [[...items]];
    return items.flatMap((item, i) =>
      permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
    );
  }

  /** Each event in a batch of its own, in the given order: separate requests, consumed one by one. */
  const oneByOne = (events: readonly PersonEvent[], store = new Store()): Store => {
    for (const event of events) store.run([event]);
    return store;
  };

  /** PostHog's sequential rules on the events sorted by time: what the order-independent rules must give. */
  const sequential = (events: readonly PersonEvent[]): Record<string, unknown> =>
    [...events]
      .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp))
      .reduce((properties, event) => applyPropertyUpdates(properties, event.updates).properties, {});

  const outcomes = (events: readonly PersonEvent[]) =>
    permutations(events).map((order) => ({
      order: order.map((event) => events.indexOf(event)).join(''),
      properties: oneByOne(order).personOf('u')?.properties,
    }));

  it.each([
    ['$set_once(a)@1 then $set(b)@2 gives b', [{ $set_once: { k: 'a' } }, { $set: { k: 'b' } }], { k: 'b' }],
    ['$set(b)@1 then $set_once(a)@2 gives b', [{ $set: { k: 'b' } }, { $set_once: { k: 'a' } }], { k: 'b' }],
    [
      '$set_once(a)@1 then $set_once(c)@2 gives a',
      [{ $set_once: { k: 'a' } }, { $set_once: { k: 'c' } }],
      { k: 'a' },
    ],
    ['$set(a)@1 then $set(b)@2 gives b', [{ $set: { k: 'a' } }, { $set: { k: 'b' } }], { k: 'b' }],
    ['$set_once(a)@1 then $unset@2 removes it', [{ $set_once: { k: 'a' } }, { $unset: ['k'] }], {}],
    ['$set(a)@1 then $unset@2 removes it', [{ $set: { k: 'a' } }, { $unset: ['k'] }], {}],
    ['$unset@1 then $set_once(a)@2 gives a', [{ $unset: ['k'] }, { $set_once: { k: 'a' } }], { k: 'a' }],
    ['$unset@1 then $set(a)@2 gives a', [{ $unset: ['k'] }, { $set: { k: 'a' } }], { k: 'a' }],
    [
      '$set_once(a)@1, $set(b)@2, $set_once(c)@3, $set(d)@4 gives d',
      [{ $set_once: { k: 'a' } }, { $set: { k: 'b' } }, { $set_once: { k: 'c' } }, { $set: { k: 'd' } }],
      { k: 'd' },
    ],
    [
      '$set(a)@1, $set(b)@2, $unset@3, $set(c)@4, $set_once(d)@5 gives c',
      [
        { $set: { k: 'a' } },
        { $set: { k: 'b' } },
        { $unset: ['k'] },
        { $set: { k: 'c' } },
        { $set_once: { k: 'd' } },
      ],
      { k: 'c' },
    ],
  ])('%s, in every processing order', (_name, updates, expected) => {
    // Prepare
    const events = updates.map((properties, i) => update(i + 1, properties));
    // Act
    const results = outcomes(events);
    // Assess
    expect(sequential(events)).toEqual(expected);
    expect(results).toEqual(results.map(({ order }) => ({ order, properties: expected })));
  });

  it('applies a person’s events of one batch to one copy: as one by one, and the person read stays as read', () => {
    // Prepare: a stored person, then one batch of several updates of it.
    const store = new Store();
    store.run([update(1, { $set: { a: 1, k: 'x' } })]);
    const read = store.personOf('u')!;
    const asRead = structuredClone(read);
    const events = [
      update(2, { $set: { k: 'y' } }),
      update(3, { $set_once: { b: 2 } }),
      update(4, { $unset: ['a'] }),
      update(5, { $set: { c: 3 } }),
    ];
    const separately = oneByOne(events, oneByOne([update(1, { $set: { a: 1, k: 'x' } })]));

    // Act
    store.run(events);

    // Assess
    expect(read).toEqual(asRead);
    expect(store.personOf('u')?.properties).toEqual({ k: 'y', b: 2, c: 3 });
    // Versions count writes: one here, four there.
    expect({ ...store.personOf('u'), version: 0 }).toEqual({ ...separately.personOf('u'), version: 0 });
  });

  it('gives PostHog’s sequential result for every 4-event history of $set/$set_once/$unset on one key, in every order', () => {
    // Prepare: one key, events with distinct times, each doing one or two kinds of update.
    const kinds: Record<string, unknown>[] = [
      { $set: { k: 'a' } },
      { $set: { k: 'b' } },
      { $set_once: { k: 'a' } },
      { $set_once: { k: 'b' } },
      { $set_once: { k: 'a' }, $set: { k: 'b' } },
      { $set: { k: 'a' }, $unset: ['k'] },
      { $unset: ['k'] },
    ];
    const histories: Record<string, unknown>[][] = [[]];
    for (let length = 0; length < 4; length++)
      histories.push(
        ...histories.filter((h) => h.length === length).flatMap((h) => kinds.map((k) => [...h, k])),
      );
    const gives = (event: Record<string, unknown>, kind: '$set' | '$set_once'): unknown =>
      (event[kind] as Record<string, unknown> | undefined)?.k;
    /**
     * The two order dependences left without merges (properties.ts): a `$set_once` after an `$unset`
     * that follows a value may have yielded to that value; and a `$set` value sent again later keeps
     * its first time until the person is written for another reason, so a `$set` of another value or
     * an `$unset` timed in between and applied last acts as if the value had been sent once.
     */
    const documented = (history: readonly Record<string, unknown>[]): boolean =>
      history.some(
        (unset, u) =>
          unset.$unset !== undefined &&
          history.slice(0, u).some((earlier) => gives(earlier, '$set') ?? gives(earlier, '$set_once')) &&
          history.slice(u + 1).some((later) => gives(later, '$set_once') !== undefined),
      ) ||
      history.some((first, i) =>
        history
          .slice(i + 2)
          .some(
            (again, l) =>
              gives(first, '$set') !== undefined &&
              gives(again, '$set') === gives(first, '$set') &&
              history
                .slice(i + 1, i + 2 + l)
                .some(
                  (between) =>
                    between.$unset !== undefined ||
                    ![undefined, gives(first, '$set')].includes(gives(between, '$set')),
                ),
          ),
      );
    let checked = 0;
    let skipped = 0;
    for (const history of histories.filter((h) => h.length > 0)) {
      if (documented(history)) {
        skipped++;
        continue;
      }
      const events = history.map((properties, i) => update(i + 1, properties));
      const expected = sequential(events);
      for (const order of permutations(events)) {
        // Act
        const properties = oneByOne(order).personOf('u')?.properties;
        // Assess
        if (!sameJson(properties, expected))
          throw new Error(
            `${JSON.stringify(history)} in order ${order.map((e) => events.indexOf(e)).join(',')}: ${JSON.stringify(properties)} ≠ ${JSON.stringify(expected)}`,
          );
        checked++;
      }
    }
    // 1,756 of the 2,800 histories, each in all its orders; the rest are the documented cases.
    expect(checked).toBe(35_811);
    expect(skipped).toBe(1_044);
  });

  it('still removes the value, but loses a later $set_once, when an $unset in between is applied last (the documented case)', () => {
    // Prepare
    const events = [
      update(1, { $set: { k: 'a' } }),
      update(2, { $unset: ['k'] }),
      update(3, { $set_once: { k: 'b' } }),
    ];
    // Act
    const unsetLast = oneByOne([events[0]!, events[2]!, events[1]!]).personOf('u')?.properties;
    // Assess: PostHog in time order gives b.
    expect(sequential(events)).toEqual({ k: 'b' });
    expect(unsetLast).toEqual({});
  });

  it('agrees in every order on events of the same millisecond: $set by value, and $unset over a value', () => {
    // Prepare
    const sameTime = [
      update(1, { $set: { k: 'a', j: 'x' } }),
      update(1, { $set: { k: 'b' }, $unset: ['j'] }),
    ];
    const onceSameTime = [update(1, { $set_once: { k: 'b' } }), update(1, { $set_once: { k: 'a' } })];
    // Act
    const results = permutations(sameTime).map((order) => oneByOne(order).personOf('u')?.properties);
    const onceResults = permutations(onceSameTime).map((order) => oneByOne(order).personOf('u')?.properties);
    // Assess
    expect(results).toEqual([{ k: 'b' }, { k: 'b' }]);
    expect(onceResults[0]).toEqual(onceResults[1]);
  });

  it('ends the same when two consumers read the person at once and the loser re-applies its events on top', () => {
    for (const winner of [0, 1]) {
      // Prepare: the first request's event and the second's, consumed concurrently.
      const store = oneByOne([update(1, { $set: { seen: true } })]);
      const batches = [
        [update(2, { $set: { plan: 'first' }, $set_once: { first_plan: 'first' } })],
        [update(3, { $set: { plan: 'second' }, $set_once: { first_plan: 'second' } })],
      ];
      const loaded = store.loaded();
      const [ours, theirs] = winner === 0 ? batches : [...batches].reverse();
      const workspaces = [ours!, theirs!].map((batch) => {
        const workspace = new PersonWorkspace(projectId, loaded);
        for (const event of batch) workspace.apply(event);
        return workspace;
      });
      // Act
      expect(store.write(workspaces[0]!.changes())).toBe('done');
      expect(store.write(workspaces[1]!.changes())).toBe('conflict');
      store.run(theirs!);
      // Assess
      expect(store.personOf('u')?.properties).toEqual({ seen: true, plan: 'second', first_plan: 'first' });
    }
  });

  it('writes nothing for an update older than the value it would replace', () => {
    // Prepare
    const store = oneByOne([
      update(3, { $set_once: { first: 'early' } }),
      update(5, { $set: { plan: 'new' } }),
    ]);
    const workspace = new PersonWorkspace(projectId, store.loaded());
    // Act
    workspace.apply(update(4, { $set: { plan: 'old' }, $set_once: { first: 'later' } }));
    // Assess
    expect(workspace.changes().persons).toEqual([]);
  });

  it('stores the new time of a $set value sent again with the next change, not on its own', () => {
    // Prepare
    const store = oneByOne([update(1, { $set: { plan: 'pro' } })]);
    const again = new PersonWorkspace(projectId, store.loaded());
    const withChange = new PersonWorkspace(projectId, store.loaded());
    // Act
    again.apply(update(3, { $set: { plan: 'pro' } }));
    withChange.apply(update(3, { $set: { plan: 'pro', seen: true } }));
    // Assess
    expect(again.changes().persons).toEqual([]);
    expect(withChange.changes().persons[0]?.person.propertyStamps.plan).toEqual({
      at: Date.parse(at(3)),
      once: false,
    });
  });

  it('keeps an $unset of a key the person lacks, so an older $set applied later stays undone', () => {
    // Prepare
    const store = oneByOne([update(1, {}), update(3, { $unset: ['plan'] })]);
    // Act
    store.run([update(2, { $set: { plan: 'pro' } })]);
    // Assess
    expect(store.personOf('u')?.properties).toEqual({});
    expect(store.personOf('u')?.unsetTimes).toEqual({ plan: Date.parse(at(3)) });
  });

  it('treats values stored without times as older than any event', () => {
    // Prepare: a person as stored before property times existed.
    const store = oneByOne([update(1, {})]);
    const uuid = personUuidFor(projectId, 'u');
    store.persons.set(uuid, {
      ...store.persons.get(uuid)!,
      properties: { plan: 'old', first: 'old', gone: 'old' },
      propertyStamps: {},
    });
    // Act
    store.run([update(0, { $set: { plan: 'new' }, $set_once: { first: 'new' }, $unset: ['gone'] })]);
    // Assess
    expect(store.personOf('u')?.properties).toEqual({ plan: 'new', first: 'old' });
  });

  it('keeps the times of values taken from a merged person, so later updates still resolve by time', () => {
    // Prepare: the anonymous person's landing page, merged into the user's person.
    const store = oneByOne([
      personEvent(
        '$pageview',
        'anon',
        { $set_once: { $initial_url: '/landing' }, $set: { plan: 'free' } },
        at(2),
      ),
      personEvent('$pageview', 'user', { $set: { email: 'u@example.com' } }, at(3)),
      personEvent('$identify', 'user', { $anon_distinct_id: 'anon' }, at(4)),
    ]);
    // Act: events timed before the merge, applied after it.
    store.run([personEvent('$pageview', 'anon', { $set_once: { $initial_url: '/ad' } }, at(1))]);
    store.run([personEvent('$pageview', 'user', { $set: { plan: 'pro' } }, at(3))]);
    // Assess: as PostHog gives in time order.
    expect(store.personOf('anon')?.properties).toEqual({
      $initial_url: '/ad',
      plan: 'pro',
      email: 'u@example.com',
    });
  });
});

describe('person limits: no person outgrows what one DynamoDB item holds', () => {
  const big = (bytes: number) => 'x'.repeat(bytes);
  /** Bytes of a person's properties as the person item stores them, with their times and tombstones. */
  const propertiesBytes = (person: Person | undefined) => {
    const item = toPersonItem(projectId, person!);
    return [item.props, item.prop_times, item.unset_times].reduce(
      (sum, text) => sum + Buffer.byteLength(text ?? ''),
      0,
    );
  };

  it('bounds an update by the bytes of its keys’ and values’ JSON text, whatever their type', () => {
    // Prepare: the values counted without writing their JSON, and those that need it.
    const values: unknown[] = [
      'plain',
      '',
      'a"b',
      'x\\y',
      'é',
      '\n',
      '\u2028',
      '\x7f',
      1.5,
      -0,
      1e21,
      1e-7,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      true,
      false,
      null,
      { a: [1, 'x'] },
    ];
    const json = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
    for (const key of ['k', 'é"', '']) {
      for (const value of values) {
        // Act
        const bytes = updateGrowthBytes({ set: { [key]: value }, setOnce: {}, unset: [] });
        // Assess: key, value, `:` and `,`, and the key's stored time.
        expect({ key, value, bytes }).toEqual({ key, value, bytes: json(key) + json(value) + 2 + 26 });
      }
    }
  });

  it('refuses a $set that would take the properties over the cap, warns, and applies later small ones', () => {
    // Prepare
    const store = new Store();
    const third = Math.floor(personLimits.maxPropertiesBytes / 3);

    // Act
    const [workspace] = store.run([
      personEvent('$pageview', 'u', { $set: { a: big(third) } }),
      personEvent('$pageview', 'u', { $set: { b: big(third) } }),
      personEvent('$pageview', 'u', { $set: { c: big(third) } }),
      personEvent('$pageview', 'u', { $set: { d: big(third) } }),
      personEvent('$pageview', 'u', { $set: { plan: 'pro' } }),
    ]);

    // Assess
    const person = store.personOf('u');
    expect(Object.keys(person!.properties).sort()).toEqual(['a', 'b', 'plan']);
    expect(propertiesBytes(person)).toBeLessThanOrEqual(personLimits.maxPropertiesBytes);
    expect(workspace!.warnings.map((warning) => warning.type)).toEqual([
      'person_properties_size_violation',
      'person_properties_size_violation',
    ]);
  });

  it('keeps a person under the cap across batches, however many keys each event adds', () => {
    // Prepare: events of 200 keys of 100 bytes each, one batch each.
    const store = new Store();
    const keysOf = (batch: number) =>
      Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${batch}-${i}`, big(100)]));

    // Act
    for (let batch = 0; batch < 12; batch++)
      store.run([personEvent('$pageview', 'u', { $set: keysOf(batch) })]);

    // Assess
    const bytes = propertiesBytes(store.personOf('u'));
    expect(bytes).toBeLessThanOrEqual(personLimits.maxPropertiesBytes);
    expect(bytes).toBeGreaterThan(personLimits.maxPropertiesBytes / 2);
  });

  it("carries a person's exact stored size through updates by the keys they name", () => {
    // Seeded cases: the size carried from update to update equals the size measured each time.
    let seed = 7;
    const pick = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const keys = ['a', 'b', 'é', '"q', '__proto__', 'long key', ''];
    const values = [1, 'v', 'é"', null, true, { o: [1, 2] }, [], '', 12.5];
    const valuesOf = (count: number) => {
      const chosen: Record<string, unknown> = {};
      for (let i = 0; i < count; i++)
        defineOwn(chosen, keys[pick(keys.length)]!, values[pick(values.length)]);
      return chosen;
    };
    const differing: unknown[] = [];
    for (let run = 0; run < 500; run++) {
      let person: TimedProperties = { properties: {}, propertyStamps: {}, unsetTimes: {} };
      let size = storedSizeOf(person);
      for (let step = 0; step < 8; step++) {
        const updates = {
          set: valuesOf(pick(3)),
          setOnce: valuesOf(pick(3)),
          unset: Array.from({ length: pick(2) }, () => keys[pick(keys.length)]!),
        };
        const after = applyTimedPropertyUpdates(person, updates, pick(5));
        const named = new Set([
          ...Object.keys(updates.set),
          ...Object.keys(updates.setOnce),
          ...updates.unset,
        ]);
        size = storedSizeAfter(size, person, after, named);
        const measured = storedSizeOf(after);
        if (!sameJson(size, measured)) differing.push({ run, step, size, measured });
        person = after;
      }
    }
    expect(differing).toEqual([]);
  });

  it.each([
    ['an object', Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i]))],
    ['a text', 'z'.repeat(60_000)],
  ])(
    'writes out a held value once, however many events of its millisecond set its key: %s',
    (_kind, held) => {
      // Prepare: the person holds a large value; events of the same millisecond set the key, and lose
      // to it by their JSON text (`"a"` sorts before it).
      const store = new Store();
      const at = '2024-03-01T12:00:00.000Z';
      store.run([personEvent('$pageview', 'u', { $set: { held } }, at)]);
      const events = Array.from({ length: 300 }, () =>
        personEvent('$pageview', 'u', { $set: { held: 'a' } }, at),
      );

      // Act: counted, not timed. Before, each event wrote the held value out again (300 events, 300
      // texts of it; a batch of 10,000 events against a 128 KB object cost about 13 s of CPU).
      const { characters } = countingJsonText(() => store.run(events));

      // Assess
      expect(characters).toBeLessThan(5 * JSON.stringify(held).length);
      expect(store.personOf('u')!.properties['held']).toEqual(held);
    },
  );

  it('measures a refused merge once per batch, not once per event that asks for it', () => {
    // Prepare: two persons whose properties together pass the cap.
    const store = new Store();
    store.run([personEvent('$pageview', 'a', { $set: { x: big(90_000) } })]);
    store.run([personEvent('$pageview', 'b', { $set: { y: big(90_000) } })]);
    const events = Array.from({ length: 300 }, () =>
      personEvent('$identify', 'a', { $anon_distinct_id: 'b' }),
    );

    // Act: counted, not timed. Before, each event measured both persons merged (300 texts of 180 KB;
    // 2 ms an event, about 20 s of the shared consumer's CPU for a batch of 10,000).
    const { result: workspaces, characters } = countingJsonText(() => store.run(events));
    const warnings = workspaces.flatMap((workspace) => workspace.warnings.map((warning) => warning.type));

    // Assess
    expect(characters).toBeLessThan(4 * personLimits.maxPropertiesBytes);
    expect(warnings).toEqual(Array(300).fill('cannot_merge_person_too_large'));
    expect(store.personOf('b')!.properties).toEqual({ y: big(90_000) });
  });

  it('measures a person at the cap once per batch, not once per event', () => {
    // Prepare: a person within 30,000 bytes of the cap, filled 20 keys a batch.
    const store = new Store();
    for (let batch = 0; batch < 70; batch++)
      store.run([
        personEvent('$pageview', 'u', {
          $set: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${batch}-${i}`, big(100)])),
        }),
      ]);
    const before = store.personOf('u')!;
    expect(propertiesBytes(before)).toBeGreaterThan(personLimits.maxPropertiesBytes - 30_000);
    const events = Array.from({ length: 300 }, (_, i) =>
      personEvent('$pageview', 'u', { $set: { [`x${i}`]: big(30_000) } }),
    );

    // Act: counted, not timed. Before, every event measured the whole person (300 events: 300 texts of
    // 160 KB; a batch of 10,000 such events cost about 10 s of the shared consumer's CPU).
    const { result: workspaces, characters } = countingJsonText(() => store.run(events));
    const warnings = workspaces[0]!.warnings.map((warning) => warning.type);

    // Assess
    expect(characters).toBeLessThan(4 * personLimits.maxPropertiesBytes);
    expect(warnings).toEqual(Array(300).fill('person_properties_size_violation'));
    expect(store.personOf('u')!.properties).toEqual(before.properties);
  });

  const personWithIds = (store: Store, count: number) => {
    store.run([personEvent('$identify', 'user')]);
    for (let i = 1; i < count; i++)
      store.run([personEvent('$identify', 'user', { $anon_distinct_id: `anon-${i}` })]);
    expect(store.personOf('user')?.distinctIds).toHaveLength(count);
  };

  it('adds no distinct id to a person that has the most it may have, and warns', () => {
    // Prepare
    const store = new Store();
    personWithIds(store, personLimits.maxDistinctIds);

    // Act
    const [workspace] = store.run([personEvent('$identify', 'user', { $anon_distinct_id: 'one-more' })]);

    // Assess
    expect(store.personOf('user')?.distinctIds).toHaveLength(personLimits.maxDistinctIds);
    expect(store.personOf('one-more')).toBeUndefined();
    expect(workspace!.warnings).toEqual([
      expect.objectContaining({
        type: 'cannot_merge_person_too_large',
        details: expect.objectContaining({
          sourcePersonDistinctId: 'one-more',
          targetPersonDistinctId: 'user',
        }),
      }),
    ]);
  });

  it('gives an alias its own person when the person it would join is full', () => {
    // Prepare
    const store = new Store();
    personWithIds(store, personLimits.maxDistinctIds);

    // Act: `new-id` has no person and names the full one as its alias.
    store.run([personEvent('$create_alias', 'new-id', { alias: 'user' })]);

    // Assess
    expect(store.personOf('new-id')?.uuid).toBe(personUuidFor(projectId, 'new-id'));
    expect(store.personOf('user')?.distinctIds).toHaveLength(personLimits.maxDistinctIds);
  });

  it('refuses a merge whose persons together would be too large, in distinct ids or properties', () => {
    // Prepare
    const store = new Store();
    personWithIds(store, personLimits.maxDistinctIds - 1);
    store.run([personEvent('$pageview', 'other'), personEvent('$pageview', 'other-2')]);
    const half = Math.ceil(personLimits.maxPropertiesBytes / 2);
    store.run([
      personEvent('$pageview', 'heavy-1', { $set: { a: big(half) } }),
      personEvent('$pageview', 'heavy-2', { $set: { b: big(half) } }),
    ]);

    // Act
    store.run([personEvent('$create_alias', 'user', { alias: 'other' })]);
    store.run([personEvent('$create_alias', 'user', { alias: 'other-2' })]);
    store.run([personEvent('$create_alias', 'heavy-1', { alias: 'heavy-2' })]);

    // Assess: the first merge fits exactly; the others are refused.
    expect(store.personOf('other')?.uuid).toBe(personUuidFor(projectId, 'user'));
    expect(store.personOf('other-2')?.uuid).toBe(personUuidFor(projectId, 'other-2'));
    expect(store.personOf('heavy-2')?.uuid).toBe(personUuidFor(projectId, 'heavy-2'));
    expect(store.personOf('heavy-1')?.properties).toEqual({ a: big(half) });
  });
});

describe('groupByPerson', () => {
  it('groups events whose distinct ids merge or already share a person, each group in timestamp order', () => {
    const store = new Store();
    store.run([personEvent('$create_alias', 'known-a', { alias: 'known-b' })]);
    const late = personEvent('$pageview', 'x', {}, '2024-03-01T12:00:05.000Z');
    const early = personEvent('$pageview', 'x', {}, '2024-03-01T12:00:01.000Z');
    const link = personEvent('$identify', 'y', { $anon_distinct_id: 'x' }, '2024-03-01T12:00:03.000Z');
    const knownA = personEvent('$pageview', 'known-a');
    const knownB = personEvent('$pageview', 'known-b');
    const alone = personEvent('$pageview', 'z');
    const groups = groupByPerson([late, knownA, link, alone, early, knownB], store.loaded());
    expect(groups).toEqual([[early, link, late], [knownA, knownB], [alone]]);
  });

  describe('a chain of merges, as a hostile project could send one', () => {
    // Event i identifies `link-(i+1)` with the anonymous id `link-i`: one chain through every event.
    const chain = (n: number): PersonEvent[] =>
      Array.from({ length: n }, (_, i) =>
        personEvent('$identify', `link-${i + 1}`, { $anon_distinct_id: `link-${i}` }),
      );

    it.each([
      ['oldest link first', false],
      ['newest link first', true],
    ])('puts every event in one group, %s', (_order, reversed) => {
      const events = chain(50);
      const groups = groupByPerson(reversed ? [...events].reverse() : events, new Store().loaded());
      expect(groups).toHaveLength(1);
      expect(new Set(groups[0])).toEqual(new Set(events));
    });

    it('costs map lookups linear in the events, whichever link comes first', () => {
      // Counted, not timed: before, each lookup walked the rest of the chain (n²/2 steps: 4.5 million
      // for these 3,000 events, seconds of the shared consumer's CPU for a full batch of 10,000).
      const n = 3_000;
      const newestFirst = chain(n).reverse();
      const gets = jest.spyOn(Map.prototype, 'get');
      try {
        groupByPerson(newestFirst, new Store().loaded());
        expect(gets.mock.calls.length).toBeLessThan(30 * n);
      } finally {
        gets.mockRestore();
      }
    });
  });

  describe('a group of many persons, as a hostile project could send one', () => {
    it('costs iteration steps linear in the events: no merge or new person passes over every mapping', () => {
      // Counted, not timed: before, each merge passed over every mapping of its group and each new
      // person over every mapping and every stored one (n² steps: 2.5 million for these 3,004
      // events; about half a second of the shared consumer's CPU for a batch of 10,000).
      const store = new Store();
      const seed = new PersonWorkspace(projectId, store.loaded());
      const known = Array.from({ length: 1_000 }, (_, i) => `known-${i}`);
      for (const distinctId of known) seed.apply(personEvent('$pageview', distinctId));
      expect(store.write(seed.changes())).toBe('done');
      const anonymous = 1_000;
      const perUser = 200;
      const events = [
        ...known.map((distinctId) => personEvent('$pageview', distinctId)),
        ...Array.from({ length: anonymous }, (_, i) => personEvent('$pageview', `anon-${i}`)),
        ...Array.from({ length: anonymous }, (_, i) =>
          personEvent('$identify', `user-${Math.floor(i / perUser)}`, { $anon_distinct_id: `anon-${i}` }),
        ),
        ...Array.from({ length: anonymous / perUser - 1 }, (_, i) =>
          personEvent('$identify', `user-${i + 1}`, { $anon_distinct_id: `user-${i}` }),
        ),
      ];
      const loaded = store.loaded();
      const steps = [new Map().values(), new Set().values()].map((iterator) =>
        jest.spyOn(Object.getPrototypeOf(iterator) as Iterator<unknown>, 'next'),
      );
      let written: PersonChanges[];
      try {
        written = groupByPerson(events, loaded).map((group) => {
          const workspace = new PersonWorkspace(projectId, loaded);
          for (const event of group) workspace.apply(event);
          return workspace.changes();
        });
        const counted = steps.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
        expect(counted).toBeLessThan(30 * events.length);
      } finally {
        for (const spy of steps) spy.mockRestore();
      }
      // Each user took its 200 anonymous ids; no user took another (each is identified).
      const users = written.flatMap((changes) => changes.persons).filter(({ person }) => person.isIdentified);
      expect(users.map(({ person }) => person.distinctIds.length)).toEqual(Array(5).fill(perUser + 1));
    });
  });

  it('lists the distinct ids an event needs', () => {
    expect(distinctIdsOf(personEvent('$identify', 'u', { $anon_distinct_id: 'a' }))).toEqual(['u', 'a']);
    expect(distinctIdsOf(personEvent('$pageview', 'u'))).toEqual(['u']);
  });
});
