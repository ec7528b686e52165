import { nameUuid } from './name-uuid';
import type { StoredEvent } from './event';
import { isIllegalDistinctId } from './illegal-ids';
import type { StoredSize } from './person-limits';
import {
  personLimits,
  storedPropertiesBytes,
  storedSizeAfter,
  storedSizeOf,
  updateGrowthBytes,
} from './person-limits';
import type { Properties, PropertyUpdates, TimedProperties } from './properties';
import {
  applyTimedPropertyUpdates,
  applyTimedPropertyUpdatesTo,
  changedBeyondRefresh,
  defineOwn,
  isObject,
  mergeTimedProperties,
  processesPerson,
  propertyUpdatesOf,
} from './properties';

/**
 * Persons and identity, as PostHog's plugin-server does them (`person-state.ts`), over
 * a store without transactions. Pure: the consumer loads what a batch needs, runs its events through
 * a `PersonWorkspace`, and writes the workspace's `changes()` in the order functions/consumer/persons.ts
 * documents.
 *
 * PostHog applies one distinct id's events in the order they arrived; here concurrent batches, and
 * retries that re-apply a batch on top of another's writes, process them in any order. Property
 * updates therefore resolve by event time (applyTimedPropertyUpdates), which makes them independent
 * of processing order but for the cases documented there and at `absorb`.
 */

/** A person; its properties carry the stamps and tombstones that make updates order-independent. */
export interface Person extends TimedProperties {
  readonly uuid: string;
  readonly createdAt: string;
  readonly isIdentified: boolean;
  readonly distinctIds: readonly string[];
  /** Optimistic concurrency: every stored write expects the version it read and stores the next one. */
  readonly version: number;
  /** Set once this person has been merged into another: readers and writers follow it. */
  readonly mergedInto?: string;
  /** For a merged person: false until the survivor is known to hold its properties. */
  readonly absorbed?: boolean;
}

type Draft = { -readonly [K in keyof Person]: Person[K] } & { distinctIds: string[] };

/** What a person-processing event asks for. */
export interface PersonEvent {
  readonly uuid: string;
  readonly event: string;
  readonly distinctId: string;
  readonly timestamp: string;
  readonly updates: PropertyUpdates;
  /** The distinct id whose person this event merges into its own (`$anon_distinct_id`, `alias`). */
  readonly mergeFrom?: string;
}

export type IngestionWarningType =
  | 'cannot_merge_with_illegal_distinct_id'
  | 'cannot_merge_already_identified'
  /** PostHog's: an update that would take the person's properties over their cap was not applied. */
  | 'person_properties_size_violation'
  /** Flock's: a merge or alias would give one person more than `personLimits` allow. */
  | 'cannot_merge_person_too_large';

export interface IngestionWarning {
  readonly type: IngestionWarningType;
  readonly eventUuid: string;
  readonly details: Readonly<Record<string, string>>;
}

/** PostHog's namespace for person uuids: the same (project, distinct id) gives PostHog's uuid. */
const personUuidNamespace = '932979b4-65c3-4424-8467-0b66ec27bc22';

/** A new person's uuid, derived from its first distinct id, so a replay creates the same person. */
export function personUuidFor(projectId: number, distinctId: string): string {
  return nameUuid(`${projectId}:${distinctId}`, personUuidNamespace);
}

/** PostHog cuts every distinct id to 200 characters (code points, as Python counts them). */
const maxDistinctIdLength = 200;

/** A distinct id as capture stores it, and as persons are looked up by it. */
export function cutDistinctId(text: string): string {
  if (text.length <= maxDistinctIdLength) return text;
  let index = 0;
  for (let count = 0; count < maxDistinctIdLength && index < text.length; count++) {
    index += text.codePointAt(index)! > 0xffff ? 2 : 1;
  }
  return text.slice(0, index);
}

function mergeSourceOf(event: string, properties: Properties): string | undefined {
  let raw: unknown;
  if ((event === '$create_alias' || event === '$merge_dangerously') && properties.alias)
    raw = properties.alias;
  else if (event === '$identify' && Object.hasOwn(properties, '$anon_distinct_id'))
    raw = properties.$anon_distinct_id;
  else return undefined;
  // PostHog stringifies the value (an object becomes "[object Object]", an illegal id); capture's
  // 200-character cut applies to it as to every distinct id.
  const text = typeof raw === 'string' ? raw : isObject(raw) ? '[object Object]' : String(raw);
  return cutDistinctId(text);
}

/** The person side of a stored event, or undefined when the event skips person processing. */
export function personEventOf(event: StoredEvent): PersonEvent | undefined {
  if (!processesPerson(event.properties)) return undefined;
  const mergeFrom = mergeSourceOf(event.event, event.properties);
  return {
    uuid: event.uuid,
    event: event.event,
    distinctId: event.distinctId,
    timestamp: event.timestamp,
    updates: propertyUpdatesOf(event.properties),
    ...(mergeFrom !== undefined ? { mergeFrom } : {}),
  };
}

/** The state of a batch's distinct ids and persons as read from the store. */
export interface LoadedPersons {
  /** Distinct id → person uuid, for every looked-up distinct id that has a mapping. */
  readonly distinctIds: ReadonlyMap<string, string>;
  /** Persons by uuid, including merged ones along forwarding chains. */
  readonly persons: ReadonlyMap<string, Person>;
}

/** Distinct ids an event needs to know about. */
export function distinctIdsOf(event: PersonEvent): string[] {
  return event.mergeFrom !== undefined ? [event.distinctId, event.mergeFrom] : [event.distinctId];
}

/** Merged persons forward to the person they merged into; a chain is never longer than this. */
export const maxForwardingHops = 10;

/** The uuid a stored mapping ends at after following merged persons (which may not exist yet). */
function storedEndOf(loaded: LoadedPersons, distinctId: string): string | undefined {
  let uuid = loaded.distinctIds.get(distinctId);
  for (let hop = 0; uuid !== undefined && hop < maxForwardingHops; hop++) {
    const next = loaded.persons.get(uuid)?.mergedInto;
    if (next === undefined) break;
    uuid = next;
  }
  return uuid;
}

/**
 * Splits a batch's events into groups that touch disjoint persons: events are linked by a merge
 * between their distinct ids or by distinct ids that already share a person. Each group is sorted by
 * timestamp (then batch order): property updates do not need it, but merges within a batch then
 * happen in the order they did.
 */
export function groupByPerson(events: readonly PersonEvent[], loaded: LoadedPersons): PersonEvent[][] {
  // Union-find with path compression and union by size: near-linear in the batch's distinct ids,
  // whatever order its merges come in. Without them a chain of merges sent newest link first makes
  // every lookup walk the rest of the chain: quadratic, about 2 s of the shared consumer's CPU for
  // one project's batch of 10,000 events (`$identify` needs only the public project key).
  const parent = new Map<string, string>();
  const size = new Map<string, number>();
  const find = (key: string): string => {
    let root = key;
    for (let next = parent.get(root); next !== undefined && next !== root; next = parent.get(root))
      root = next;
    if (root === key && !parent.has(key)) {
      parent.set(key, key);
      size.set(key, 1);
      return key;
    }
    for (let node = key; node !== root;) {
      const next = parent.get(node)!;
      parent.set(node, root);
      node = next;
    }
    return root;
  };
  const union = (a: string, b: string): void => {
    const rootA = find(a);
    const rootB = find(b);
    if (rootA === rootB) return;
    const [small, large] = size.get(rootA)! < size.get(rootB)! ? [rootA, rootB] : [rootB, rootA];
    parent.set(small, large);
    size.set(large, size.get(large)! + size.get(small)!);
  };
  for (const event of events) {
    for (const distinctId of distinctIdsOf(event)) {
      find(`d:${distinctId}`);
      const end = storedEndOf(loaded, distinctId);
      if (end !== undefined) union(`d:${distinctId}`, `p:${end}`);
    }
    if (event.mergeFrom !== undefined) union(`d:${event.distinctId}`, `d:${event.mergeFrom}`);
  }
  const groups = new Map<string, { event: PersonEvent; order: number }[]>();
  events.forEach((event, order) => {
    const root = find(`d:${event.distinctId}`);
    const group = groups.get(root) ?? [];
    group.push({ event, order });
    groups.set(root, group);
  });
  return [...groups.values()].map((group) =>
    group
      .sort((a, b) =>
        a.event.timestamp !== b.event.timestamp
          ? a.event.timestamp < b.event.timestamp
            ? -1
            : 1
          : a.order - b.order,
      )
      .map(({ event }) => event),
  );
}

/** Per loaded state (a batch's, shared by its groups' workspaces): person uuid → its stored distinct ids. */
const storedHolders = new WeakMap<LoadedPersons, ReadonlyMap<string, readonly string[]>>();

function storedHoldersOf(loaded: LoadedPersons): ReadonlyMap<string, readonly string[]> {
  let byPerson = storedHolders.get(loaded);
  if (!byPerson) {
    const built = new Map<string, string[]>();
    for (const [distinctId, personUuid] of loaded.distinctIds) {
      const ids = built.get(personUuid);
      if (ids) ids.push(distinctId);
      else built.set(personUuid, [distinctId]);
    }
    storedHolders.set(loaded, (byPerson = built));
  }
  return byPerson;
}

/**
 * The exact stored size of `person` once `updates` apply at `at`, from its size now (`size`): only
 * the keys the updates name are copied and updated (applyTimedPropertyUpdatesTo reads no others).
 */
function sizeAfterUpdate(
  size: StoredSize,
  person: TimedProperties,
  updates: PropertyUpdates,
  at: number,
): StoredSize {
  const keys = new Set([...Object.keys(updates.setOnce), ...Object.keys(updates.set), ...updates.unset]);
  const before = { properties: {}, propertyStamps: {}, unsetTimes: {} };
  for (const key of keys) {
    for (const part of ['properties', 'propertyStamps', 'unsetTimes'] as const)
      if (Object.hasOwn(person[part], key)) defineOwn(before[part], key, person[part][key]);
  }
  const after = {
    properties: { ...before.properties },
    propertyStamps: { ...before.propertyStamps },
    unsetTimes: { ...before.unsetTimes },
  };
  applyTimedPropertyUpdatesTo(after, updates, at);
  return storedSizeAfter(size, before, after, keys);
}

/** Writes that bring the store to a workspace's state; see functions/consumer/persons.ts for their order. */
export interface PersonChanges {
  /** New distinct id mappings: written only if the distinct id has none yet. */
  readonly claims: readonly { readonly distinctId: string; readonly personUuid: string }[];
  /** Stored persons merged away in this run: written only if still at `expectedVersion`. */
  readonly merged: readonly { readonly person: Person; readonly expectedVersion: number }[];
  /** Live persons created or changed: written only if still at `expectedVersion` (absent: new). */
  readonly persons: readonly { readonly person: Person; readonly expectedVersion: number | undefined }[];
  /** Merged persons whose properties the survivor now holds (after `persons` is written). */
  readonly absorbed: readonly { readonly personUuid: string; readonly mergedInto: string }[];
  /** Mappings moved from a merged person to the survivor: written only if still pointing at `from`. */
  readonly repoints: readonly { readonly distinctId: string; readonly from: string; readonly to: string }[];
}

/** Per merged person: a merge's size, at the survivor's and the merged person's revisions. */
type MeasuredMerges = Map<Draft, { readonly into: number; readonly from: number; readonly bytes: number }>;

interface Slot {
  readonly stored: Person | undefined;
  readonly current: Draft;
}

interface Mapping {
  readonly stored: string | undefined;
  /** Changed only through `PersonWorkspace.point`, which keeps `holders` in step. */
  current: string | undefined;
}

function draftOf(person: Person): Draft {
  return { ...person, distinctIds: [...person.distinctIds] };
}

function addDistinctIds(person: Draft, distinctIds: readonly string[]): void {
  for (const distinctId of distinctIds)
    if (!person.distinctIds.includes(distinctId)) person.distinctIds.push(distinctId);
}

/** Whether a person needs writing; see changedBeyondRefresh for the properties. */
function changedSince(stored: Person, current: Draft): boolean {
  return (
    stored.isIdentified !== current.isIdentified ||
    stored.createdAt !== current.createdAt ||
    stored.distinctIds.length !== current.distinctIds.length ||
    stored.distinctIds.some((distinctId, i) => current.distinctIds[i] !== distinctId) ||
    changedBeyondRefresh(stored, current)
  );
}

/**
 * One group's persons in memory: events apply one after another (PostHog's rules, property updates
 * resolved by event time), and `changes()` says what to write. Built from what was read, so running
 * the same events again on the state they produced changes nothing: `$set_once`/`$set`/`$unset` are
 * idempotent and a done merge is a no-op.
 */
export class PersonWorkspace {
  private readonly mappings = new Map<string, Mapping>();
  private readonly slots = new Map<string, Slot>();
  /**
   * Per person uuid: the distinct ids whose mapping currently points at it, so a merge moves its
   * source's mappings without a pass over every mapping of the group: that pass made a group of
   * `$identify` merges quadratic in its events (10,000 events: 5,000 merges over 10,000 mappings).
   */
  private readonly holders = new Map<string, Set<string>>();
  /** Distinct ids of merged persons that were not read: moved to the survivor, conditionally. */
  private readonly unreadRepoints = new Map<string, { from: string; to: string }>();
  /** Per person: its properties' stored bytes, or an upper bound of them (see `update`). */
  private readonly propertyBytes = new WeakMap<Draft, number>();
  /**
   * Persons whose properties, stamps and tombstones are copies this workspace made (by an update), so
   * later updates may change them in place. A draft starts out sharing them with what was read, which
   * `changes()` compares against. A merge gives the survivor new objects too, which stay its own.
   */
  private readonly ownProperties = new WeakSet<Draft>();
  /** Per person: its exact stored size, while `update` alone has changed it since it was measured. */
  private readonly exactSizes = new WeakMap<Draft, StoredSize>();
  /**
   * Per person's properties object: the copy `propertiesNow` handed out, until `update` changes that
   * object in place (a merge or a first update gives the person a new one).
   */
  private readonly propertiesCopies = new WeakMap<Properties, Readonly<Record<string, unknown>>>();
  /** Per person: how many times its properties changed (`revise`). */
  private readonly revisions = new WeakMap<Draft, number>();
  /** Per survivor and merged person: the merged size, at the revisions it was measured at. */
  private readonly measuredMerges = new WeakMap<Draft, MeasuredMerges>();
  readonly warnings: IngestionWarning[] = [];

  constructor(
    private readonly projectId: number,
    private readonly loaded: LoadedPersons,
  ) {}

  /** Applies one event; returns the uuid of the person it ends up on. */
  apply(event: PersonEvent): string {
    let identified = event.event === '$identify';
    let person: Draft;
    const other = event.mergeFrom;
    if (other !== undefined && other !== event.distinctId) {
      const illegal = [event.distinctId, other].find(isIllegalDistinctId);
      if (illegal !== undefined) {
        this.warn('cannot_merge_with_illegal_distinct_id', event, {
          illegalDistinctId: illegal,
          otherDistinctId: illegal === other ? event.distinctId : other,
        });
        person = this.personOf(event.distinctId, event.timestamp);
      } else {
        // PostHog marks the result identified once a merge passes these checks, even if refused later.
        identified = true;
        person = this.merge(other, event);
      }
    } else {
      person = this.personOf(event.distinctId, event.timestamp);
    }
    this.update(person, event);
    if (identified) person.isIdentified = true;
    return person.uuid;
  }

  /**
   * The properties of a person of this workspace as they are now: a copy, unchanged by later events
   * (the lake's `person_properties`: the person as resolved at the event's ingestion). Events between
   * which the person's properties did not change get the same copy, which nobody may change: a
   * person's 20 events of one flush, each `$set`ting the same GeoIP values, cost one copy rather than
   * 20, and the lake hand-off writes those properties once (queue/lake-message.ts).
   */
  propertiesNow(uuid: string): Readonly<Record<string, unknown>> {
    const properties = this.slots.get(uuid)?.current.properties;
    if (!properties) return {};
    let copy = this.propertiesCopies.get(properties);
    if (!copy) {
      copy = { ...properties };
      this.propertiesCopies.set(properties, copy);
    }
    return copy;
  }

  private bytesOf(person: Draft): number {
    let bytes = this.propertyBytes.get(person);
    if (bytes === undefined) {
      bytes = storedPropertiesBytes(person);
      this.propertyBytes.set(person, bytes);
    }
    return bytes;
  }

  /**
   * Applies the event's property updates, unless they would take the person over
   * `personLimits.maxPropertiesBytes` (then nothing of them applies, as PostHog refuses the update).
   * The size is tracked as an upper bound that each update grows by the most it can add; only when
   * the bound passes the cap is the exact size needed: measured once, then carried from update to
   * update through the keys each names (`exactSizes`). Measuring every time cost each event the
   * person's size: about 1 ms an event for a person at the cap, 10 s for a batch of its events.
   */
  private update(person: Draft, event: PersonEvent): void {
    const growth = updateGrowthBytes(event.updates);
    if (growth === 0) return;
    const at = Date.parse(event.timestamp);
    let bytes = this.bytesOf(person) + growth;
    let exact: StoredSize | undefined;
    if (bytes > personLimits.maxPropertiesBytes) {
      const now = this.exactSizes.get(person) ?? storedSizeOf(person);
      this.exactSizes.set(person, now);
      exact = sizeAfterUpdate(now, person, event.updates, at);
      bytes = exact.bytes;
      if (bytes > personLimits.maxPropertiesBytes) {
        this.warn('person_properties_size_violation', event, {
          personUuid: person.uuid,
          limitBytes: String(personLimits.maxPropertiesBytes),
        });
        return;
      }
    }
    if (this.ownProperties.has(person)) {
      // On this workspace's own copies: no copy needed.
      if (applyTimedPropertyUpdatesTo(person, event.updates, at))
        this.propertiesCopies.delete(person.properties);
    } else {
      Object.assign(person, applyTimedPropertyUpdates(person, event.updates, at));
      this.ownProperties.add(person);
    }
    this.propertyBytes.set(person, bytes);
    this.revise(person);
    if (exact) this.exactSizes.set(person, exact);
    else this.exactSizes.delete(person);
  }

  /** Whether `person` may take `more` distinct ids. */
  private hasRoomFor(person: Draft, more: number): boolean {
    return person.distinctIds.length + more <= personLimits.maxDistinctIds;
  }

  /** Whether `from` merged into `into` stays within `personLimits`; if so, records the merged size. */
  private mergeFits(from: Draft, into: Draft): boolean {
    const intoIds = new Set(into.distinctIds);
    const newIds = from.distinctIds.filter((distinctId) => !intoIds.has(distinctId));
    if (!this.hasRoomFor(into, newIds.length)) return false;
    let bytes = this.bytesOf(into) + this.bytesOf(from);
    if (bytes > personLimits.maxPropertiesBytes) bytes = this.mergedBytes(from, into);
    if (bytes > personLimits.maxPropertiesBytes) return false;
    this.propertyBytes.set(into, bytes);
    return true;
  }

  /**
   * The stored size of `into`'s properties once `from`'s are merged in, measured once while neither
   * changes: a refused merge, sent again and again, measured both persons each time (2 ms an event
   * for two persons of 100 KB, 20 s of the shared consumer's CPU for a batch of 10,000).
   */
  private mergedBytes(from: Draft, into: Draft): number {
    const known = this.measuredMerges.get(into)?.get(from);
    const revisions = { into: this.revisions.get(into) ?? 0, from: this.revisions.get(from) ?? 0 };
    if (known && known.into === revisions.into && known.from === revisions.from) return known.bytes;
    const bytes = storedPropertiesBytes(mergeTimedProperties(into, from));
    let measured = this.measuredMerges.get(into);
    if (!measured) this.measuredMerges.set(into, (measured = new Map() as MeasuredMerges));
    measured.set(from, { ...revisions, bytes });
    return bytes;
  }

  /** Counts changes to a person's properties, which `measuredMerges` depend on. */
  private revise(person: Draft): void {
    this.revisions.set(person, (this.revisions.get(person) ?? 0) + 1);
  }

  private refuseTooLarge(event: PersonEvent, other: string): void {
    this.warn('cannot_merge_person_too_large', event, {
      sourcePersonDistinctId: other,
      targetPersonDistinctId: event.distinctId,
      maxDistinctIds: String(personLimits.maxDistinctIds),
      maxPropertiesBytes: String(personLimits.maxPropertiesBytes),
    });
  }

  changes(): PersonChanges {
    const claims: { distinctId: string; personUuid: string }[] = [];
    const repoints: { distinctId: string; from: string; to: string }[] = [];
    for (const [distinctId, mapping] of this.mappings) {
      if (mapping.current === undefined || mapping.current === mapping.stored) continue;
      if (mapping.stored === undefined) claims.push({ distinctId, personUuid: mapping.current });
      else repoints.push({ distinctId, from: mapping.stored, to: mapping.current });
    }
    for (const [distinctId, move] of this.unreadRepoints) {
      if (!this.mappings.has(distinctId)) repoints.push({ distinctId, ...move });
    }
    const merged: { person: Person; expectedVersion: number }[] = [];
    const persons: { person: Person; expectedVersion: number | undefined }[] = [];
    const absorbed: { personUuid: string; mergedInto: string }[] = [];
    for (const { stored, current } of this.slots.values()) {
      if (current.mergedInto === undefined) {
        if (!stored || changedSince(stored, current)) {
          persons.push({
            person: { ...current, version: (stored?.version ?? 0) + 1 },
            expectedVersion: stored?.version,
          });
        }
        continue;
      }
      if (!stored) continue; // never written: nothing to forward
      if (stored.mergedInto === undefined) {
        merged.push({
          person: { ...current, absorbed: false, version: stored.version + 1 },
          expectedVersion: stored.version,
        });
      }
      if (current.absorbed === true && stored.absorbed !== true) {
        absorbed.push({ personUuid: current.uuid, mergedInto: current.mergedInto });
      }
    }
    return { claims, merged, persons, absorbed, repoints };
  }

  private warn(type: IngestionWarningType, event: PersonEvent, details: Record<string, string>): void {
    this.warnings.push({ type, eventUuid: event.uuid, details });
  }

  private mapping(distinctId: string): Mapping {
    let mapping = this.mappings.get(distinctId);
    if (!mapping) {
      const stored = this.loaded.distinctIds.get(distinctId);
      mapping = { stored, current: undefined };
      this.mappings.set(distinctId, mapping);
      this.point(distinctId, mapping, stored);
    }
    return mapping;
  }

  /** Points a distinct id's mapping at `uuid`, keeping `holders` in step. */
  private point(distinctId: string, mapping: Mapping, uuid: string | undefined): void {
    if (mapping.current === uuid) return;
    if (mapping.current !== undefined) this.holders.get(mapping.current)?.delete(distinctId);
    mapping.current = uuid;
    if (uuid === undefined) return;
    let holding = this.holders.get(uuid);
    if (!holding) this.holders.set(uuid, (holding = new Set()));
    holding.add(distinctId);
  }

  private slot(uuid: string): Slot | undefined {
    let slot = this.slots.get(uuid);
    if (!slot) {
      const stored = this.loaded.persons.get(uuid);
      if (!stored) return undefined;
      slot = { stored, current: draftOf(stored) };
      this.slots.set(uuid, slot);
    }
    return slot;
  }

  /** A person a mapping points at but that was never written (a run stopped after claiming). */
  private freshSlot(uuid: string, createdAt: string): Slot {
    // The stored mappings to it that this workspace has not moved, and the workspace's own: every new
    // person passes here, so neither is found by a pass over all mappings.
    const distinctIds = new Set<string>();
    for (const distinctId of storedHoldersOf(this.loaded).get(uuid) ?? []) {
      const mapping = this.mappings.get(distinctId);
      if (mapping === undefined || mapping.current === uuid) distinctIds.add(distinctId);
    }
    for (const distinctId of this.holders.get(uuid) ?? []) distinctIds.add(distinctId);
    const slot: Slot = {
      stored: undefined,
      current: {
        uuid,
        createdAt,
        isIdentified: false,
        properties: {},
        propertyStamps: {},
        unsetTimes: {},
        distinctIds: [...distinctIds].sort(),
        version: 0,
      },
    };
    this.slots.set(uuid, slot);
    return slot;
  }

  /**
   * The live person of a distinct id, following merged persons. A merged person whose survivor may
   * not hold its properties yet (a run stopped between the two writes) is absorbed again: the
   * survivor's own values win, so absorbing twice gives the same result.
   */
  private resolve(distinctId: string, timestamp: string): Draft | undefined {
    const mapping = this.mapping(distinctId);
    if (mapping.current === undefined) return undefined;
    const path: Slot[] = [];
    let uuid = mapping.current;
    let live: Slot | undefined;
    for (let hop = 0; hop <= maxForwardingHops && !live; hop++) {
      const slot = this.slot(uuid) ?? this.freshSlot(uuid, timestamp);
      if (slot.current.mergedInto === undefined) live = slot;
      else {
        path.push(slot);
        uuid = slot.current.mergedInto;
      }
    }
    if (!live)
      throw new Error(
        `distinct id ${distinctId} forwards through more than ${maxForwardingHops} merged persons`,
      );
    for (const merged of path.reverse())
      this.absorb(merged.current, live.current, merged.current.absorbed !== true);
    this.point(distinctId, mapping, live.current.uuid);
    // A run that stopped between claiming an id and writing its person left the id off the list.
    addDistinctIds(live.current, [distinctId]);
    return live.current;
  }

  private personOf(distinctId: string, timestamp: string): Draft {
    return this.resolve(distinctId, timestamp) ?? this.create([distinctId], timestamp);
  }

  private create(distinctIds: readonly string[], createdAt: string): Draft {
    const uuid = personUuidFor(this.projectId, distinctIds[0]!);
    // Usually new; after a run that claimed other ids for it and stopped, it starts with those.
    const slot = this.slot(uuid) ?? this.freshSlot(uuid, createdAt);
    if (slot.current.mergedInto !== undefined)
      throw new Error(`person ${uuid} was merged and cannot be reused`);
    for (const distinctId of distinctIds) this.pointAt(distinctId, slot.current);
    return slot.current;
  }

  private pointAt(distinctId: string, person: Draft): void {
    this.point(distinctId, this.mapping(distinctId), person.uuid);
    addDistinctIds(person, [distinctId]);
  }

  /** PostHog's `mergeDistinctIds`: `other` is `$anon_distinct_id`/`alias`, the event's own id wins. */
  private merge(other: string, event: PersonEvent): Draft {
    const otherPerson = this.resolve(other, event.timestamp);
    const intoPerson = this.resolve(event.distinctId, event.timestamp);
    if (otherPerson && !intoPerson) {
      if (!this.hasRoomFor(otherPerson, 1)) {
        this.refuseTooLarge(event, other);
        return this.create([event.distinctId], event.timestamp);
      }
      this.pointAt(event.distinctId, otherPerson);
      return otherPerson;
    }
    if (!otherPerson && intoPerson) {
      if (!this.hasRoomFor(intoPerson, 1)) {
        this.refuseTooLarge(event, other);
        return intoPerson;
      }
      this.pointAt(other, intoPerson);
      return intoPerson;
    }
    if (otherPerson && intoPerson) {
      if (otherPerson.uuid === intoPerson.uuid) return intoPerson;
      if (event.event !== '$merge_dangerously' && otherPerson.isIdentified) {
        this.warn('cannot_merge_already_identified', event, {
          sourcePersonDistinctId: other,
          targetPersonDistinctId: event.distinctId,
        });
        return intoPerson;
      }
      if (!this.mergeFits(otherPerson, intoPerson)) {
        this.refuseTooLarge(event, other);
        return intoPerson;
      }
      otherPerson.mergedInto = intoPerson.uuid;
      this.absorb(otherPerson, intoPerson, true);
      return intoPerson;
    }
    return this.create([event.distinctId, other], event.timestamp);
  }

  /**
   * `from` (already forwarding to `into`, directly or through others) hands over its distinct ids
   * and, if asked, its properties (`into`'s own win, with their times), oldest `created_at`, and
   * identified state.
   *
   * Merges are where processing order still matters, as "the survivor's values win" is decided when
   * the merge is applied: an update of either person timed before the merge but applied after it
   * competes with the other person's values by time, where PostHog would have let the survivor's side
   * win; and an update of the merged-away person timed after the merge but applied before it (so to
   * that person) loses to the survivor's value, where PostHog would have applied it by its own rules.
   */
  private absorb(from: Draft, into: Draft, withProperties: boolean): void {
    if (withProperties) {
      Object.assign(into, mergeTimedProperties(into, from));
      this.exactSizes.delete(into);
      this.revise(into);
      if (from.createdAt < into.createdAt) into.createdAt = from.createdAt;
      into.isIdentified = true;
      from.absorbed = true;
    }
    addDistinctIds(into, from.distinctIds);
    const moving = this.holders.get(from.uuid);
    if (moving)
      for (const distinctId of [...moving]) this.point(distinctId, this.mappings.get(distinctId)!, into.uuid);
    for (const distinctId of from.distinctIds) {
      if (this.mappings.has(distinctId)) continue;
      // Merged again within the batch: the stored mapping still points where it first did.
      const stored = this.unreadRepoints.get(distinctId)?.from ?? from.uuid;
      this.unreadRepoints.set(distinctId, { from: stored, to: into.uuid });
    }
  }
}
