import type { ShownPerson } from '../shared/db/persons';
import { getShownPersonsByDistinctIds } from '../shared/db/persons';

/**
 * The persons of distinct ids, each read at most once per request: a listing filtered by person
 * properties looks up the persons of every chunk of events it examines, and then of the page it
 * answers, and a distinct id recurs across them (a user's events come in runs). Misses are kept
 * too, so an id with no person is not asked for again.
 */
export class RequestPersons {
  private readonly known = new Map<string, ShownPerson | undefined>();

  constructor(
    private readonly singleTable: string,
    private readonly projectId: number,
  ) {}

  /** The persons of these distinct ids (absent: no person), reading only those not read yet. */
  async of(distinctIds: Iterable<string>): Promise<ReadonlyMap<string, ShownPerson | undefined>> {
    const missing = [...new Set(distinctIds)].filter((id) => !this.known.has(id));
    if (missing.length > 0) {
      const found = await getShownPersonsByDistinctIds(this.singleTable, this.projectId, missing);
      for (const id of missing) this.known.set(id, found.get(id));
    }
    return this.known;
  }
}
