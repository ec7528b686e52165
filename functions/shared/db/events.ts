import { inflateRawSync } from 'node:zlib';
import type { StoredEvent } from '../domain/event';
import { propertiesTextOf } from '../domain/event';
import { propertiesDictionary } from './properties-dictionary';
import { DictionaryDeflater } from './dictionary-deflate';
import type { IndexEntry, ReadBounds, ReadRequest } from './event-index';
import { readEntries } from './event-index';
import { skipEntries } from './event-skip';
import { keys } from './keys';
import { batchGetItems, projectionOf } from './operations';

/**
 * Event items: keyed by (project, uuid), so writing the same event twice leaves one item.
 * Write units are billed per started KB: properties that would push an item past 1 KB are stored
 * deflated with a preset dictionary of PostHog's property vocabulary (properties-dictionary.ts: a
 * typical 1 KB properties object deflates to about a quarter, a GeoIP-processed 3 KB one to about
 * 750 bytes), smaller ones as text.
 *
 * Items written before the dictionary hold `pz` (deflated without one): they stay readable, as
 * `props` items do. Neither is written any more.
 *
 * A type rather than an interface: a record of its attributes as it is, so the consumer hands the
 * item to the batch writer without a copy.
 */
export type EventItem = {
  PK: string;
  SK: string;
  uuid: string;
  project: number;
  event: string;
  distinct_id: string;
  ts: string;
  created_at: string;
  elements_chain?: string;
  /** Properties as JSON text, or deflated JSON: `pd` with the properties dictionary, `pz` without. */
  props?: string;
  pd?: Uint8Array;
  /** Written before the dictionary; read only. */
  pz?: Uint8Array;
  /** Id of the SQS message whose index pages list this event (see event-index.ts). */
  owner: string;
  /**
   * The ingest message that wrote the item (`eventSourceOf` its body): the one whose hand-off the lake
   * writer keeps (docs/lake.md, "Exactly once"). Absent on items written before it was kept.
   */
  src?: string;
};

/**
 * The attributes a listing reads of an event item: not its keys (which the listing built) nor the
 * lake's source, about a fifth of a small item, which DynamoDB would send and the SDK parse for
 * every event of a page (read units are the same).
 */
const listedAttributes = [
  'uuid',
  'project',
  'event',
  'distinct_id',
  'ts',
  'created_at',
  'elements_chain',
  'props',
  'pd',
  'pz',
  'owner',
] as const satisfies readonly (keyof EventItem)[];

/** An event item as a listing reads it: what makes the event, and its owner, without its keys. */
type ListedItem = Pick<EventItem, (typeof listedAttributes)[number]>;

const listedItemProjection = projectionOf(listedAttributes);

/** Room the item's other attributes take (keys, names, timestamps, owner, src), with a margin. */
const itemOverheadBytes = 360;
const writeUnitBytes = 1024;
/**
 * The fastest level: nearly the same size on small JSON, several times less CPU than the default.
 * Synchronous on purpose, and one zlib state for all events (dictionary-deflate.ts): zlib's
 * asynchronous calls create a stream each, and `deflateRawSync` a stream and a state each, which
 * costs more than compressing a 1 KB object (measured with bench/pipeline).
 */
const propertiesDeflater = new DictionaryDeflater(propertiesDictionary, 1);

export function toEventItem(event: StoredEvent, owner: string, src?: string): EventItem {
  const { json, bytes } = propertiesTextOf(event);
  const fitsAsText =
    bytes + event.event.length + event.distinctId.length + itemOverheadBytes <= writeUnitBytes;
  const compressed = fitsAsText ? undefined : propertiesDeflater.deflate(Buffer.from(json));
  // Built by assignment, not by spreading small objects into a literal: spreads made this a third
  // of the function's time on bench/pipeline's events (the deflate most of the rest).
  const { PK, SK } = keys.event(event.projectId, event.uuid);
  const item: EventItem = {
    PK,
    SK,
    uuid: event.uuid,
    project: event.projectId,
    event: event.event,
    distinct_id: event.distinctId,
    ts: event.timestamp,
    created_at: event.createdAt,
    elements_chain: event.elementsChain || undefined,
    owner,
  };
  if (compressed && compressed.length < json.length) item.pd = compressed;
  else item.props = json;
  if (src !== undefined) item.src = src;
  return item;
}

export function fromEventItem(item: ListedItem): StoredEvent {
  return decodeEventItem(item).event;
}

/** The event, and the characters decoding it took (its properties' JSON and its elements chain). */
function decodeEventItem(item: ListedItem): { readonly event: StoredEvent; readonly chars: number } {
  const json = item.pd
    ? inflateRawSync(item.pd, { dictionary: propertiesDictionary }).toString('utf8')
    : item.pz
      ? inflateRawSync(item.pz).toString('utf8')
      : (item.props ?? '{}');
  const event: StoredEvent = {
    uuid: item.uuid,
    projectId: item.project,
    event: item.event,
    distinctId: item.distinct_id,
    properties: JSON.parse(json) as Record<string, unknown>,
    timestamp: item.ts,
    elementsChain: item.elements_chain ?? '',
    createdAt: item.created_at,
  };
  return { event, chars: json.length + event.elementsChain.length };
}

/** An event by its project and uuid: what makes it one stored item. */
export interface EventRef {
  readonly projectId: number;
  readonly uuid: string;
}

/** The `${project}\u0000${uuid}` key of an event: one per stored item. */
export const eventRefKey = (ref: EventRef): string => `${ref.projectId}\u0000${ref.uuid}`;

/** What the lake's exactly-once reads of an event item: the message that wrote it, and its time. */
export interface EventSource {
  /** `EventItem.src`: undefined on an item written before it was kept. */
  readonly src: string | undefined;
  readonly ts: string;
}

/**
 * The source and timestamp of each of these events that is stored, by `eventRefKey`: strongly
 * consistent (every write acknowledged before the read is seen), only those attributes projected
 * (one read unit per item up to 4 KB).
 */
export async function storedEventSources(
  tableName: string,
  refs: readonly EventRef[],
): Promise<Map<string, EventSource>> {
  const unique = new Map(refs.map((ref) => [eventRefKey(ref), ref]));
  const items = await batchGetItems<{ project: number; uuid: string; src?: string; ts: string }>(
    tableName,
    [...unique.values()].map((ref) => keys.event(ref.projectId, ref.uuid)),
    true,
    { expression: '#p, #u, #s, #t', names: { '#p': 'project', '#u': 'uuid', '#s': 'src', '#t': 'ts' } },
    'low-level',
  );
  return new Map(
    items.map((item) => [
      eventRefKey({ projectId: item.project, uuid: item.uuid }),
      { src: item.src, ts: item.ts },
    ]),
  );
}

/** Event items by uuid (absent ones are missing from the map). */
export async function getEventItems(
  tableName: string,
  projectId: number,
  uuids: readonly string[],
): Promise<Map<string, ListedItem>> {
  const items = await batchGetItems<ListedItem>(
    tableName,
    [...new Set(uuids)].map((uuid) => keys.event(projectId, uuid)),
    false,
    listedItemProjection,
  );
  return new Map(items.map((item) => [item.uuid, item]));
}

export interface ListEventsRequest extends Omit<ReadRequest, 'limit' | 'bounds'> {
  readonly limit: number;
  readonly bounds?: ReadBounds;
  /** Post-filter: which of these events (in order) to keep. */
  readonly accept?: (events: readonly StoredEvent[]) => Promise<readonly boolean[]> | readonly boolean[];
  /**
   * The most index entries to examine in one call. A selective post-filter then returns a short
   * page and a resume point instead of reading on: the cost of a request stays bounded.
   */
  readonly maxExamined?: number;
  /**
   * The most characters of event data (properties JSON and elements chains, decompressed) to decode
   * in one call: `examinedCharsBudget` unless given. Reading stops at the event that reaches it, with
   * a resume point, so large stored events cost a short page rather than a long request.
   */
  readonly maxExaminedChars?: number;
  /**
   * The most milliseconds to spend reading chunks: once a chunk ends past this, reading stops with a
   * resume point, as for the other budgets. Unbounded unless given. A selective post-filter over
   * large events otherwise spends its whole entry budget (seconds, on stored events of thousands of
   * properties) to answer a short page.
   */
  readonly maxReadMs?: number;
  /**
   * Events to pass over first, by index entries only (event-skip.ts): they are neither decoded nor
   * returned, and cost nothing of the character budget. Only without a post-filter, which must see
   * an event to know whether it counts.
   */
  readonly skip?: number;
}

/**
 * What one listing decodes at most by default: 4 Mi characters, under the 5 MB a page can answer.
 * Typical events (about 1 KB) fill any page long before; only pages of very large events stop early.
 */
export const examinedCharsBudget = 4 * 1024 * 1024;
/**
 * Entries the first read of a listing asks for at most, before the events' size is known: with
 * events of up to 240 KB (capture's cap), the first chunk stays under 32 MB. Later chunks are sized
 * from the characters per event seen so far.
 */
const firstChunkMax = 128;

export interface ListEventsResult {
  readonly events: StoredEvent[];
  /** Set when reading stopped early (page full or budget spent): the last entry examined. */
  readonly resumeFrom?: IndexEntry;
  /** Events passed over by `skip` before `events`. */
  readonly skipped?: number;
}

/**
 * Events of one or more index values in time order, within the bounds and passing the post-filter.
 * Entries whose event item belongs to another message (a duplicate listing) or is missing are skipped.
 */
export async function listEvents(request: ListEventsRequest): Promise<ListEventsResult> {
  const order = request.order ?? 'newest';
  const maxExamined = request.maxExamined ?? Number.POSITIVE_INFINITY;
  const maxChars = request.maxExaminedChars ?? examinedCharsBudget;
  const readUntil = performance.now() + (request.maxReadMs ?? Number.POSITIVE_INFINITY);
  if (request.skip && request.accept) throw new Error('skip needs an index that serves the whole filter');
  const passed = request.skip ? await skipEntries(request, order, request.skip, request.limit) : undefined;
  const skipped = passed ? { skipped: passed.skipped } : {};
  if (passed?.exhausted) return { events: [], ...skipped };
  // The entries the skip read past its end: the first chunks come from them while they last.
  let following = passed?.following;
  const events: StoredEvent[] = [];
  let bounds = passed?.bounds ?? request.bounds ?? {};
  let examined = passed?.skipped ?? 0;
  let decoded = 0;
  let chars = 0;
  for (;;) {
    const want = request.limit - events.length;
    // With a post-filter, read ahead: some of what is read will be dropped.
    const wanted = Math.min(request.accept ? Math.max(want * 2, 100) : want, maxExamined - examined);
    // Within the character budget, as far as the events decoded so far tell their size.
    const fits = decoded === 0 ? firstChunkMax : Math.ceil((maxChars - chars) / (chars / decoded));
    const chunk = Math.max(1, Math.min(wanted, fits));
    if (following && following.entries.length < chunk && !following.complete) following = undefined;
    const entries = following
      ? following.entries.splice(0, chunk)
      : await readEntries({ ...request, order, limit: chunk, bounds });
    if (entries.length === 0) return { events, ...skipped };
    const items = await getEventItems(
      request.tableName,
      request.projectId,
      entries.map((entry) => entry.uuid),
    );
    // Decode in order until the character budget is spent: the rest of the chunk waits for `next`.
    const valid: IndexEntry[] = [];
    const candidates: StoredEvent[] = [];
    let read = 0;
    while (read < entries.length && chars < maxChars) {
      const entry = entries[read++]!;
      const item = items.get(entry.uuid);
      if (item === undefined || !entry.owners.includes(item.owner) || item.ts !== entry.timestamp) continue;
      const decodedItem = decodeEventItem(item);
      chars += decodedItem.chars;
      valid.push(entry);
      candidates.push(decodedItem.event);
    }
    decoded += candidates.length;
    const keep = request.accept ? await request.accept(candidates) : candidates.map(() => true);
    for (let i = 0; i < candidates.length; i++) {
      if (!keep[i]) continue;
      events.push(candidates[i]!);
      if (events.length === request.limit) return { events, resumeFrom: valid[i], ...skipped };
    }
    examined += read;
    const last = entries[read - 1]!;
    if (read === entries.length && entries.length < chunk) return { events, ...skipped };
    if (examined >= maxExamined || chars >= maxChars || performance.now() > readUntil)
      return { events, resumeFrom: last, ...skipped };
    bounds = order === 'newest' ? { ...bounds, before: last } : { ...bounds, after: last };
  }
}

/** One event by uuid, if it exists in the project. */
export async function getEvent(
  tableName: string,
  projectId: number,
  uuid: string,
): Promise<StoredEvent | undefined> {
  const item = (await getEventItems(tableName, projectId, [uuid])).get(uuid);
  return item ? fromEventItem(item) : undefined;
}
