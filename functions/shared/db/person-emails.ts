import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mapLimited } from '../concurrency';
import type { Person } from '../domain/persons';
import { documentClient } from './client';
import { keys } from './keys';
import { conditionally } from './operations';
import { readPersons } from './persons';

/**
 * The persons of a project by the value of their `email` property (keys.ts), as PostHog's
 * `persons/?email=` and its static cohort uploads of emails find them (a Postgres query on
 * `properties->>'email'` there, posthog/api/person.py and posthog/models/cohort/cohort.py).
 *
 * One item per (email, person uuid), carrying the person version that wrote it. The consumer writes
 * an entry before the person that holds the email, and removes the old one after it (consumer/
 * person-emails.ts), each conditional on that version, so an older write never undoes a newer one.
 * The index may therefore hold entries a person no longer matches (a run stopped between its
 * writes, or a person write refused after its entry was put): every reader checks each entry
 * against the person it names, which is the truth.
 */

export interface PersonEmailItem {
  PK: string;
  SK: string;
  person: string;
  version: number;
}

/** One person's entry under one email, as the person's version `version` writes or removes it. */
export interface PersonEmailEntry {
  readonly email: string;
  readonly personUuid: string;
  readonly version: number;
}

/** Longer values are not indexed (a partition key holds at most 2,048 bytes). */
export const maxIndexedEmailBytes = 1_024;

/** Persons read for one email: an email shared by more matches the first of them, by uuid. */
export const maxPersonsPerEmail = 100;

/** Emails looked up at once by one read, however many it is given. */
const emailsInFlight = 16;

/**
 * The email a person is indexed under: a live person's own `email` property when it is a non-empty
 * string that fits a key; undefined for any other person or value.
 */
export function indexedEmailOf(person: Person | undefined): string | undefined {
  if (!person || person.mergedInto !== undefined) return undefined;
  if (!Object.hasOwn(person.properties, 'email')) return undefined;
  const email = person.properties.email;
  if (typeof email !== 'string' || email === '') return undefined;
  return Buffer.byteLength(email) <= maxIndexedEmailBytes ? email : undefined;
}

/** The condition of an entry's writes: it was written by an older version of the person (or `orElse`). */
const writtenBefore = (version: number, orElse = '') => ({
  ConditionExpression: `${orElse}version < :version`,
  ExpressionAttributeValues: { ':version': version },
});

/** Indexes a person under an email, unless a newer version of it already did. */
export async function indexPersonEmail(
  tableName: string,
  projectId: number,
  { email, personUuid, version }: PersonEmailEntry,
): Promise<boolean> {
  const item: PersonEmailItem = {
    ...keys.personEmail(projectId, email, personUuid),
    person: personUuid,
    version,
  };
  return conditionally(() =>
    documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: item,
        ...writtenBefore(version, 'attribute_not_exists(PK) OR '),
      }),
    ),
  );
}

/** Removes a person's entry under an email, only if a version older than `version` wrote it. */
export async function unindexPersonEmail(
  tableName: string,
  projectId: number,
  { email, personUuid, version }: PersonEmailEntry,
): Promise<boolean> {
  return conditionally(() =>
    documentClient.send(
      new DeleteCommand({
        TableName: tableName,
        Key: keys.personEmail(projectId, email, personUuid),
        ...writtenBefore(version),
      }),
    ),
  );
}

async function indexedUuids(tableName: string, projectId: number, email: string): Promise<string[]> {
  const page = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.personEmailPartition(projectId, email) },
      ProjectionExpression: 'person',
      Limit: maxPersonsPerEmail,
    }),
  );
  return (page.Items ?? []).map((item) => String(item.person));
}

/**
 * The live persons whose `email` property is one of `emails` (exactly, as PostHog compares it),
 * each once: one Query per email, then one batched read of the persons the entries name, each
 * checked against the value it was found under.
 */
export async function findPersonsByEmails(
  tableName: string,
  projectId: number,
  emails: readonly string[],
): Promise<Person[]> {
  const wanted = [...new Set(emails)].filter(
    (email) => email !== '' && Buffer.byteLength(email) <= maxIndexedEmailBytes,
  );
  const found = await mapLimited(wanted, emailsInFlight, async (email) => ({
    email,
    uuids: await indexedUuids(tableName, projectId, email),
  }));
  const emailOf = new Map<string, Set<string>>();
  for (const { email, uuids } of found)
    for (const uuid of uuids) emailOf.set(uuid, (emailOf.get(uuid) ?? new Set()).add(email));
  const persons = await readPersons(tableName, projectId, [...emailOf.keys()], false);
  return [...persons.values()].filter((person) => {
    const email = indexedEmailOf(person);
    return email !== undefined && emailOf.get(person.uuid)!.has(email);
  });
}
