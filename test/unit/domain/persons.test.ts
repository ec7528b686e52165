import type { StoredEvent } from '../../../functions/shared/domain/event';
import type {
  LoadedPersons,
  Person,
  PersonChanges,
  PersonEvent,
} from '../../../functions/shared/domain/persons';
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
          this.persons.set(merged.personUuid, { ...current, absorbed: true, properties: {} });
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

  it('lists the distinct ids an event needs', () => {
    expect(distinctIdsOf(personEvent('$identify', 'u', { $anon_distinct_id: 'a' }))).toEqual(['u', 'a']);
    expect(distinctIdsOf(personEvent('$pageview', 'u'))).toEqual(['u']);
  });
});
