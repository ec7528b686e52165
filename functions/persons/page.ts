import * as z from 'zod';
import type { ListingEntry, ListingPage, ListingRead } from '../shared/db/person-listing';
import { livePersonsOf } from '../shared/db/person-listing';
import type { Person } from '../shared/domain/persons';
import type { PersonQuery } from '../shared/domain/person-filters';
import { isFiltered, matchesPersonQuery } from '../shared/domain/person-filters';
import { ValidationError } from '../shared/http/errors';

/**
 * Cursor paging over a sharded person listing (the project's persons, a cohort's members). A cursor
 * names a position and a direction: `before` pages on (newest first), `after` pages back. Without a
 * filter a page reads `limit` listing items per shard and the persons it keeps. With `search` or
 * `properties` it reads on until the page is full or `maxScanned` persons were examined, then stops
 * with a cursor where it stopped: a selective filter gives short pages, never an unbounded request.
 */

export interface Cursor {
  readonly direction: 'before' | 'after';
  readonly position: string;
}

const maxPositionLength = 600;
const cursorSchema = (maxLength: number) =>
  z.tuple([z.enum(['before', 'after']), z.string().min(1).max(maxLength)]);

/** A cursor as sent; 400 on anything else. `maxLength` bounds its position (600 by default). */
export function decodeCursor(raw: string, maxLength = maxPositionLength): Cursor {
  try {
    const [direction, position] = cursorSchema(maxLength).parse(
      JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')),
    );
    return { direction, position };
  } catch {
    throw new ValidationError('invalid_input', 'Invalid cursor.', 'cursor');
  }
}

export const encodeCursor = (cursor: Cursor): string =>
  Buffer.from(JSON.stringify([cursor.direction, cursor.position])).toString('base64url');

/** Persons examined at most by one filtered request. */
export const maxScanned = 5_000;

/**
 * Bytes of persons one page holds at most: a person may carry 160 KiB of properties (anyone with the
 * project token can send them), so 100 of them would pass Lambda's 6 MB response limit. A page that
 * reaches this ends early, with a `next` cursor after its last person.
 */
export const maxPageBytes = 5 * 1024 * 1024;

/** What a person adds to a page's JSON, at most (its properties and distinct ids, and the framing). */
const bytesOf = (person: Person): number =>
  Buffer.byteLength(JSON.stringify(person.properties)) +
  person.distinctIds.reduce((total, id) => total + Buffer.byteLength(id) + 3, 0) +
  400;

export interface PersonsPage {
  /** Newest first. */
  readonly persons: Person[];
  readonly next?: Cursor;
  readonly previous?: Cursor;
}

interface Kept {
  readonly person: Person;
  readonly position: string;
}

/** One page of a sharded listing (`readListingPage` of some partitions, or a cohort's `readMembersPage`). */
type ListingReader = (read: ListingRead) => Promise<ListingPage>;

/** What to read: a sharded listing of one project, a page size, a filter and where to start. */
export interface PageRequest {
  readonly tableName: string;
  readonly projectId: number;
  readonly listing: ListingReader;
  readonly limit: number;
  readonly query: PersonQuery;
  readonly cursor: Cursor | undefined;
}

/** Reads in the cursor's direction until `limit` persons are kept or the listing (or budget) ends. */
async function scan(request: PageRequest): Promise<{ kept: Kept[]; resume?: string }> {
  const { tableName, projectId, listing, limit, query, cursor } = request;
  const filtered = isFiltered(query);
  const chunk = filtered ? Math.max(limit, 200) : limit;
  const now = new Date();
  const kept: Kept[] = [];
  let bound = cursor?.position;
  let scanned = 0;
  let bytes = 0;
  for (;;) {
    const page = await listing({
      limit: chunk,
      ...(bound === undefined ? {} : cursor?.direction === 'after' ? { after: bound } : { before: bound }),
    });
    const persons = await livePersonsOf(
      tableName,
      projectId,
      page.entries.map((entry) => entry.uuid),
    );
    for (const [index, entry] of page.entries.entries()) {
      const person = persons.get(entry.uuid);
      if (!person || (filtered && !matchesPersonQuery(person, query, now))) continue;
      bytes += bytesOf(person);
      // Full in bytes: stop before this person; the next page starts with it.
      if (bytes > maxPageBytes && kept.length > 0) return { kept, resume: kept[kept.length - 1]!.position };
      kept.push({ person, position: entry.position });
      if (kept.length === limit) {
        const more = index < page.entries.length - 1 || page.more;
        return more ? { kept, resume: entry.position } : { kept };
      }
    }
    scanned += page.entries.length;
    const last: ListingEntry | undefined = page.entries[page.entries.length - 1];
    if (!page.more || !last) return { kept };
    if (scanned >= maxScanned || !filtered) return { kept, resume: last.position };
    bound = last.position;
  }
}

/** One page of persons from a sharded listing, with the cursors of the pages around it. */
export async function readPersonsPage(request: PageRequest): Promise<PersonsPage> {
  const { cursor } = request;
  const { kept, resume } = await scan(request);
  if (cursor?.direction === 'after') {
    // Read oldest first from the cursor: shown newest first; there is more newer when it stopped early.
    kept.reverse();
    const oldest = kept[kept.length - 1]?.position ?? cursor.position;
    return {
      persons: kept.map((entry) => entry.person),
      next: { direction: 'before', position: oldest },
      ...(resume !== undefined ? { previous: { direction: 'after', position: resume } } : {}),
    };
  }
  const newest = kept[0]?.position ?? cursor?.position;
  return {
    persons: kept.map((entry) => entry.person),
    ...(resume !== undefined ? { next: { direction: 'before', position: resume } } : {}),
    ...(cursor && newest !== undefined ? { previous: { direction: 'after', position: newest } } : {}),
  };
}
