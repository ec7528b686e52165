import { boundedCache } from '../shared/cache';
import type { PersonHints, ShownPerson } from '../shared/db/persons';
import { getShownPersonsByDistinctIds } from '../shared/db/persons';

/**
 * Per container: the person found through the mapping of a distinct id that is not its person's
 * first (one that joined a person by `$identify` or an alias), so the next request that lists it (the
 * next page, the same view refreshed) reads that person item alone, as it does for a distinct id
 * whose person was created for it. Only a hint: the person it names answers only when it is live and
 * lists the distinct id (`getShownPersonsByDistinctIds`), so a stale one costs a read, never a wrong
 * answer. 10,000 entries at most (about 200 bytes each with a 200-character distinct id), each kept
 * 5 minutes after it was last written.
 */
const foundPersons = boundedCache<string, string>({ max: 10_000, ttlMs: 5 * 60_000 });

// A table name has no space, nor has a project id: the second space ends the prefix.
function hintsFor(singleTable: string, projectId: number): PersonHints {
  const keyOf = (distinctId: string) => `${singleTable} ${projectId} ${distinctId}`;
  return {
    get: (distinctId) => foundPersons.get(keyOf(distinctId)),
    set: (distinctId, personUuid) => foundPersons.set(keyOf(distinctId), personUuid),
    delete: (distinctId) => foundPersons.delete(keyOf(distinctId)),
  };
}

/**
 * The persons of distinct ids, each read at most once per request: a listing filtered by person
 * properties looks up the persons of every chunk of events it examines, and then of the page it
 * answers, and a distinct id recurs across them (a user's events come in runs). Misses are kept
 * too, so an id with no person is not asked for again.
 */
export class RequestPersons {
  private readonly known = new Map<string, ShownPerson | undefined>();
  private readonly hints: PersonHints;

  constructor(
    private readonly singleTable: string,
    private readonly projectId: number,
  ) {
    this.hints = hintsFor(singleTable, projectId);
  }

  /** The persons of these distinct ids (absent: no person), reading only those not read yet. */
  async of(distinctIds: Iterable<string>): Promise<ReadonlyMap<string, ShownPerson | undefined>> {
    const missing = [...new Set(distinctIds)].filter((id) => !this.known.has(id));
    if (missing.length > 0) {
      const found = await getShownPersonsByDistinctIds(this.singleTable, this.projectId, missing, this.hints);
      for (const id of missing) this.known.set(id, found.get(id));
    }
    return this.known;
  }
}
