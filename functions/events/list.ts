import type { EventsApiConfig } from '../shared/config';
import type { IndexSpec, ReadBounds } from '../shared/db/event-index';
import { eventIndexes } from '../shared/db/event-index';
import type { ListEventsRequest, ListEventsResult } from '../shared/db/events';
import { skipEntries } from '../shared/db/event-skip';
import { listEvents } from '../shared/db/events';
import { getDistinctIdsOfPerson } from '../shared/db/persons';
import type { StoredEvent } from '../shared/domain/event';
import { matchesAllFilters } from '../shared/domain/event-filters';
import { projectRoute } from '../shared/http/private-route';
import { requestUrl } from '../shared/http/pagination';
import { json } from '../shared/http/responses';
import type { HttpEvent } from '../shared/http/types';
import type { Cursor, EventsQuery } from './query';
import { canonicalUuid } from '../shared/domain/uuid';
import { encodeCursor, parseEventsQuery } from './query';
import type { SerializedEvent } from './serialize';
import { csvResponse } from '../shared/http/csv';
import { eventsCsv, serializeEvent } from './serialize';
import { RequestPersons } from './request-persons';

/** Events more than 5 s in the future are hidden, as PostHog hides them (`posthog/api/event.py`). */
const futureToleranceMs = 5_000;
/**
 * Index entries one request may examine beyond its page: selective filters then page by cursor.
 * 2,000 rather than 5,000: bench/fuzz had filtered pages of small stored events at 1.0–1.2 s alone.
 */
const examineBudget = 2_000;
/**
 * Milliseconds a post-filtered read may spend reading before it answers what it found with `next`:
 * 2,000 entries of large stored events (bench/fuzz's, thousands of properties each) took over 1 s
 * alone, however few matched.
 */
const filteredReadBudgetMs = 300;

interface Source {
  readonly index: IndexSpec;
  readonly values: readonly string[];
}

/**
 * The index that serves the query at the cost of a page: a distinct id's, a person's distinct ids',
 * an event name's, or the whole project's. Undefined when nothing can match (an unknown person).
 */
async function sourceOf(
  singleTable: string,
  query: EventsQuery,
  projectId: number,
): Promise<Source | undefined> {
  if (query.personId !== undefined) {
    // Any other text names no person (and could be too long a key to look up).
    if (!canonicalUuid.test(query.personId)) return undefined;
    const distinctIds = await getDistinctIdsOfPerson(singleTable, projectId, query.personId);
    if (!distinctIds || distinctIds.length === 0) return undefined;
    const values =
      query.distinctId !== undefined ? distinctIds.filter((id) => id === query.distinctId) : distinctIds;
    return values.length > 0 ? { index: eventIndexes.distinctId, values } : undefined;
  }
  if (query.distinctId !== undefined) return { index: eventIndexes.distinctId, values: [query.distinctId] };
  if (query.event !== undefined) return { index: eventIndexes.event, values: [query.event] };
  return { index: eventIndexes.all, values: [''] };
}

/** Whether the index holds no more than `offset` entries within the read's bounds. */
async function offsetPassesEnd(read: Omit<ListEventsRequest, 'limit'>, offset: number): Promise<boolean> {
  if (offset === 0) return false;
  const passed = await skipEntries(read, read.order ?? 'newest', offset);
  return passed.exhausted;
}

function boundsOf(query: EventsQuery, now: Date): ReadBounds {
  const latest = new Date(now.getTime() + futureToleranceMs).toISOString();
  const before = { timestamp: query.before !== undefined && query.before < latest ? query.before : latest };
  const after = query.after === undefined ? undefined : { timestamp: query.after };
  // A cursor lies within the original bounds and replaces the one on its side.
  if (!query.cursor) return { before, after };
  return query.order === 'newest' ? { before: query.cursor, after } : { after: query.cursor, before };
}

/** Post-filters the index cannot apply: the event name (when another index was used) and properties. */
function acceptor(query: EventsQuery, source: Source, requestPersons: RequestPersons) {
  const byName = query.event !== undefined && source.index !== eventIndexes.event;
  const needsPersons = query.filters.some((filter) => filter.type === 'person');
  if (!byName && query.filters.length === 0) return undefined;
  return async (events: readonly StoredEvent[]): Promise<boolean[]> => {
    const persons = needsPersons
      ? await requestPersons.of(events.map((event) => event.distinctId))
      : new Map<string, undefined>();
    return events.map(
      (event) =>
        (!byName || event.event === query.event) &&
        matchesAllFilters(query.filters, event.properties, persons.get(event.distinctId)?.properties ?? {}),
    );
  };
}

/**
 * `GET /api/projects/:project_id/events/`: the project's events, newest first unless asked otherwise,
 * filtered by name, distinct id, person, properties and time. `next` carries a keyset cursor (and
 * `limit`/`offset`, as PostHog's pagination links carry): following it costs one page however deep the walk. With a
 * cursor, `offset` only tells the position; without one, the first `offset` events are skipped.
 * `count` is exact when the read reached the end of the events; otherwise null
 * (counting would cost a scan; README, Known limits).
 */
export const listEventsRoute = projectRoute<EventsApiConfig>(
  async ({ singleTable, eventsTable, event, project }) => {
    const query = parseEventsQuery(event);
    const source = await sourceOf(singleTable, query, project.id);
    // A cursor may carry what remains of an offset a read stopped short of (see below).
    const offset = query.cursor ? (query.cursor.skip ?? 0) : query.offset;
    const requestPersons = new RequestPersons(singleTable, project.id);
    const accept = source ? acceptor(query, source, requestPersons) : undefined;
    // Where an index serves the whole filter, the offset is passed over by index entries alone, so
    // large events it skips do not spend the page's character budget; a post-filter must read them.
    const skip = accept ? offset : 0;
    const bounds = boundsOf(query, new Date());
    const read = source && {
      tableName: eventsTable,
      projectId: project.id,
      index: source.index,
      values: source.values,
      order: query.order,
      bounds,
    };
    // A post-filter must read an event to know whether it counts, but an offset past the end of the
    // index passes every match too: index lines alone tell that, at the cost of a count.
    const beyondEnd = read !== undefined && accept !== undefined && (await offsetPassesEnd(read, offset));
    const result: ListEventsResult =
      read && !beyondEnd
        ? await listEvents({
            ...read,
            limit: skip + query.limit + 1,
            accept,
            maxExamined: examineBudget + offset + query.limit,
            maxReadMs: accept ? filteredReadBudgetMs : undefined,
            skip: offset - skip,
          })
        : { events: [] };
    const skipped = result.skipped ?? 0;
    let page = result.events.slice(skip, skip + query.limit);
    const persons = await requestPersons.of(page.map((e) => e.distinctId));
    const personOf = (stored: StoredEvent) => persons.get(stored.distinctId);
    // A page stops where its body would pass what Lambda can answer; `next` goes on from there.
    const csv = query.format === 'csv' ? eventsCsv(page, personOf, maxPageBytes) : undefined;
    let results = csv ? [] : page.map((stored) => serializeEvent(stored, personOf(stored)));
    const kept = csv ? csv.rows : jsonResultsFitting(results);
    const cut = kept < page.length;
    if (cut) {
      page = page.slice(0, kept);
      results = results.slice(0, kept);
    }
    const full = cut || result.events.length > skip + query.limit;
    const last = page[page.length - 1];
    // The read stopped early (its budget spent): go on after the last event examined, skipping
    // whatever part of the offset it did not reach.
    const stoppedEarly = !full && result.resumeFrom !== undefined;
    const resume: Cursor | undefined =
      full && last
        ? { timestamp: last.timestamp, uuid: last.uuid }
        : stoppedEarly
          ? {
              timestamp: result.resumeFrom.timestamp,
              uuid: result.resumeFrom.uuid,
              skip: Math.max(0, offset - skipped - result.events.length) || undefined,
            }
          : undefined;
    const next = resume ? nextUrl(event, query, encodeCursor(resume), page.length) : null;
    if (csv) {
      const response = csvResponse(csv, `events-project-${project.id}.csv`);
      if (next) response.headers = { ...response.headers, Link: `<${next}>; rel="next"` };
      return response;
    }
    return json(200, {
      count:
        resume === undefined && query.cursor === undefined && !beyondEnd
          ? skipped + result.events.length
          : null,
      next,
      previous: query.cursor || query.offset > 0 ? previousUrl(event, query) : null,
      results,
    });
  },
);

function nextUrl(event: HttpEvent, query: EventsQuery, cursor: string, listed: number): string {
  return requestUrl(event, {
    cursor,
    limit: String(query.limit),
    offset: String(query.offset + listed),
  });
}

/**
 * Lambda refuses a response over 6 MB (API Gateway then answers 500): a page's body stays under
 * this, with room for the envelope and headers.
 */
export const maxPageBytes = 5 * 1024 * 1024;

/** How many results, from the first, a JSON page holds within `maxPageBytes`. */
function jsonResultsFitting(results: readonly SerializedEvent[], budget = maxPageBytes): number {
  let used = 0;
  for (let i = 0; i < results.length; i++) {
    used += Buffer.byteLength(JSON.stringify(results[i])) + 1;
    if (used > budget) return Math.max(i, 1);
  }
  return results.length;
}

function previousUrl(event: HttpEvent, query: EventsQuery): string {
  const offset = query.offset - query.limit;
  return requestUrl(event, {
    cursor: undefined,
    limit: String(query.limit),
    offset: offset > 0 ? String(offset) : undefined,
  });
}
