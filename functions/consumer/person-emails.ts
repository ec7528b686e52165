import type { PersonEmailEntry } from '../shared/db/person-emails';
import { indexedEmailOf, indexPersonEmail, unindexPersonEmail } from '../shared/db/person-emails';
import type { LoadedPersons, PersonChanges } from '../shared/domain/persons';

/**
 * Keeps the email index (db/person-emails.ts) in step with the persons a group writes, at a cost
 * only when a person's indexed email changes: an event that leaves `email` as it was writes nothing.
 *
 * For every person the group writes (changed, created, or merged away), the email it was read with
 * is compared with the email it is written with (a merged-away person has none any more; a merge
 * survivor may take the merged person's). A new email is indexed before the person is written, so a
 * person never holds an email the index lacks; the old one is removed after, so a stop in between
 * leaves an extra entry that readers drop. Both carry the person's new version and are conditional
 * on it, so a replay, or a write of an older version arriving late, never undoes a newer one.
 */

/** What the group's changes add to the index and remove from it. */
function emailIndexChanges(
  loaded: LoadedPersons,
  changes: PersonChanges,
): { readonly added: PersonEmailEntry[]; readonly removed: PersonEmailEntry[] } {
  const added: PersonEmailEntry[] = [];
  const removed: PersonEmailEntry[] = [];
  for (const { person } of [...changes.merged, ...changes.persons]) {
    const before = indexedEmailOf(loaded.persons.get(person.uuid));
    const after = indexedEmailOf(person);
    if (before === after) continue;
    if (after !== undefined) added.push({ email: after, personUuid: person.uuid, version: person.version });
    if (before !== undefined)
      removed.push({ email: before, personUuid: person.uuid, version: person.version });
  }
  return { added, removed };
}

/**
 * Runs `write` (the group's person writes) between indexing the new emails and removing the old
 * ones; answers what `write` answers (false: another writer got there first, nothing is removed).
 */
export async function writeWithEmailIndex(
  tableName: string,
  projectId: number,
  loaded: LoadedPersons,
  changes: PersonChanges,
  write: (tableName: string, projectId: number, changes: PersonChanges) => Promise<boolean>,
): Promise<boolean> {
  const { added, removed } = emailIndexChanges(loaded, changes);
  await Promise.all(added.map((entry) => indexPersonEmail(tableName, projectId, entry)));
  if (!(await write(tableName, projectId, changes))) return false;
  await Promise.all(removed.map((entry) => unindexPersonEmail(tableName, projectId, entry)));
  return true;
}
