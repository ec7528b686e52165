import {
  claimDistinctId,
  markPersonAbsorbed,
  putPerson,
  readDistinctIds,
  readPersons,
  repointDistinctId,
} from '../shared/db/persons';
import { batchPutAll } from '../shared/db/operations';
import { personListingItem } from '../shared/db/person-listing';
import type { LoadedPersons, Person, PersonChanges, PersonEvent } from '../shared/domain/persons';
import {
  distinctIdsOf,
  groupByPerson,
  maxForwardingHops,
  personEventOf,
  PersonWorkspace,
} from '../shared/domain/persons';
import type { StoredEvent } from '../shared/domain/event';
import { forEachLimited } from '../shared/concurrency';
import { logger } from '../shared/logger';
import type { StageFailures } from '../shared/stage-failures';
import { failMessages, mergeFailures } from '../shared/stage-failures';
import { writeWithEmailIndex } from './person-emails';
import type { MessageEvents } from './types';

/**
 * Person processing for one consumer batch (PostHog's plugin-server `person-state.ts`), without
 * transactions.
 *
 * Per project: read the mappings and persons the batch's events touch (strongly consistent), split
 * the events into groups that touch disjoint persons, run each group's events in memory in
 * timestamp order (so 50 events of one user cost one person write, not 50), then write the group's
 * changes in this order, each write conditional:
 *
 *   1. claims     new distinct id → person mappings, only if none exists (read again first: a
 *                 mapping another batch wrote meanwhile re-runs the group without a refused write);
 *   1b. listing   a listing item per new person (db/person-listing.ts), unconditional and idempotent,
 *                 once the claims hold (so a batch that lost the race for a new user lists nothing);
 *   2. merged     persons merged away become forwarding items (`merged_into`, `absorbed: false`,
 *                 properties kept), only at the version read;
 *   3. persons    created or changed persons (the survivor of a merge holds both property sets),
 *                 only at the version read, or only if absent;
 *   4. absorbed   merged items marked `absorbed` (their properties dropped) once 3 is written;
 *   5. repoints   the merged person's distinct ids moved to the survivor, only if still pointing at it.
 *
 * Why every prefix of this sequence is safe to stop after and replay: a mapping is the single truth
 * of a distinct id's person; a forwarding item sends every reader and writer on to the survivor; a
 * survivor that may lack a merged person's properties is recognisable (`absorbed: false` on the way)
 * and absorbs them again, its own values winning, which is idempotent; `$set_once`/`$set`/`$unset`
 * reapplied to their own result change nothing; and a new person's uuid is derived from its distinct
 * id, so a replay creates the same one. A condition that fails in 1–3 means another consumer moved
 * first: the group is read again and re-run (up to `maxAttempts`), then its messages are failed and
 * SQS retries them. A failed condition in 4–5 means the work was already done and is ignored.
 *
 * Re-running a group on top of another consumer's writes applies its events after events that may
 * have happened later, as do concurrent batches holding one distinct id's events from separate
 * requests: property updates resolve by event time (domain/properties.ts, applyTimedPropertyUpdates),
 * so the result does not depend on which batch writes first, except in the cases documented there
 * and for merges (domain/persons.ts, `absorb`).
 */

interface Tagged {
  readonly event: PersonEvent;
  readonly messageId: string;
}

/**
 * The person an event was applied to and its properties right after it (PostHog's person-on-events):
 * one object for the person's events between which they did not change, so read-only.
 */
export interface ResolvedPerson {
  readonly personId: string;
  readonly properties: Readonly<Record<string, unknown>>;
}

/** Each person-processing event's resolution, for the lake hand-off (lake.ts). */
export type ResolvedPersons = Map<StoredEvent, ResolvedPerson>;

type RecordResolution = (event: PersonEvent, person: ResolvedPerson) => void;

const maxAttempts = 4;

/** Other writers kept changing these persons while the batch tried to write them. */
class PersonsConflictError extends Error {
  override readonly name = 'PersonsConflict';
  constructor(attempts: number) {
    super(
      `The persons of these events changed under every one of ${attempts} attempts to write them (concurrent writers); SQS retries the message.`,
    );
  }
}
const groupConcurrency = 16;

/**
 * The invocation's time ran out before these events' persons were written. A new user costs about
 * four requests (a read of its mapping, its claim, its listing item, the person), so a message of
 * 2,000 new users is about 8,000: more than one invocation may have time for. The groups written
 * stay written; the message is delivered again and its replay finds them done (reads only).
 */
class PersonsOutOfTimeError extends Error {
  override readonly name = 'PersonsOutOfTime';
  constructor() {
    super(
      "The invocation's time ran out before these events' persons were written; SQS delivers the message again, and the persons written so far stay written.",
    );
  }
}

/** Reads the mappings of `distinctIds` and the persons they lead to, following merged persons. */
export async function loadPersons(
  tableName: string,
  projectId: number,
  distinctIds: readonly string[],
): Promise<LoadedPersons> {
  const mappings = await readDistinctIds(tableName, projectId, distinctIds);
  const persons = new Map<string, Person>();
  let wanted = new Set(mappings.values());
  for (let hop = 0; wanted.size > 0; hop++) {
    if (hop > maxForwardingHops) throw new Error('merged persons forward further than expected');
    const found = await readPersons(tableName, projectId, [...wanted]);
    wanted = new Set();
    for (const [uuid, person] of found) {
      persons.set(uuid, person);
      if (person.mergedInto !== undefined && !persons.has(person.mergedInto)) wanted.add(person.mergedInto);
    }
  }
  return { distinctIds: mappings, persons };
}

const allTrue = async (writes: Promise<boolean>[]): Promise<boolean> =>
  (await Promise.all(writes)).every(Boolean);

/**
 * The listing items of the persons this group creates. Written once the group's claims hold (a
 * batch that lost the race for a new distinct id lists nothing: its person, named after the event it
 * saw first, would be listed a second time under another creation time), and before the person
 * itself, so a person can never exist unlisted. A listing item whose person never gets written
 * (another consumer wrote it first, between its claim and its person) lists that person.
 */
async function writeListingItems(
  tableName: string,
  projectId: number,
  changes: PersonChanges,
): Promise<void> {
  const created = changes.persons.filter((change) => change.expectedVersion === undefined);
  if (created.length === 0) return;
  const failed = await batchPutAll(
    tableName,
    created.map(({ person }) => ({ item: personListingItem(projectId, person), tag: person.uuid })),
  );
  const [first] = failed.values();
  if (first) throw first;
}

/**
 * Whether another batch claimed one of the group's new distinct ids since the batch read them.
 * Concurrent batches that hold a new user's first events each try to claim it, and all but one
 * lose; a refused conditional write is billed as a write, a strongly consistent read of the small
 * mapping items costs a fraction of that, and a group is written a while after the batch's read (16
 * groups at a time), by when a concurrent batch has often claimed the id already.
 */
async function claimedMeanwhile(
  tableName: string,
  projectId: number,
  changes: PersonChanges,
): Promise<boolean> {
  if (changes.claims.length === 0) return false;
  const mappings = await readDistinctIds(
    tableName,
    projectId,
    changes.claims.map((claim) => claim.distinctId),
  );
  return mappings.size > 0;
}

/** Writes a group's changes in the documented order; false if another writer got there first. */
export async function writePersonChanges(
  tableName: string,
  projectId: number,
  changes: PersonChanges,
): Promise<boolean> {
  if (await claimedMeanwhile(tableName, projectId, changes)) return false;
  const claimed = await allTrue(
    changes.claims.map((claim) => claimDistinctId(tableName, projectId, claim.distinctId, claim.personUuid)),
  );
  if (!claimed) return false;
  await writeListingItems(tableName, projectId, changes);
  const forwarded = await allTrue(
    changes.merged.map((merged) => putPerson(tableName, projectId, merged.person, merged.expectedVersion)),
  );
  if (!forwarded) return false;
  const written = await allTrue(
    changes.persons.map((change) => putPerson(tableName, projectId, change.person, change.expectedVersion)),
  );
  if (!written) return false;
  await Promise.all(
    changes.absorbed.map((merged) =>
      markPersonAbsorbed(tableName, projectId, merged.personUuid, merged.mergedInto),
    ),
  );
  await Promise.all(
    changes.repoints.map((move) =>
      repointDistinctId(tableName, projectId, move.distinctId, move.from, move.to),
    ),
  );
  return true;
}

/**
 * The groups in the order to write them: those whose largest message is smallest first (stable
 * otherwise), so that when time runs out (`PersonsOutOfTime`) it is a large message's users that
 * wait for the next delivery, not the batch's small messages queued behind them.
 */
function smallMessagesFirst(
  groups: PersonEvent[][],
  sizeOf: (event: PersonEvent) => number,
): PersonEvent[][] {
  const weight = new Map(
    groups.map((group) => [group, group.reduce((most, event) => Math.max(most, sizeOf(event)), 0)]),
  );
  return groups.sort((a, b) => weight.get(a)! - weight.get(b)!);
}

/** One project's person events; returns the ids of messages whose persons could not be written. */
async function processProject(
  tableName: string,
  projectId: number,
  tagged: readonly Tagged[],
  resolved: RecordResolution,
  outOfTime: () => boolean,
): Promise<StageFailures> {
  const failed: StageFailures = new Map();
  const messageOf = new Map(tagged.map(({ event, messageId }) => [event, messageId]));
  const failGroup = (group: readonly PersonEvent[], error: unknown): void =>
    failMessages(
      failed,
      group.map((event) => messageOf.get(event)!),
      error,
    );
  const failLate = (late: readonly PersonEvent[]): void => {
    logger.warn('Persons stage out of time: messages left for SQS to retry', {
      projectId,
      events: late.length,
    });
    failGroup(late, new PersonsOutOfTimeError());
  };
  const eventsPerMessage = new Map<string, number>();
  for (const { messageId } of tagged)
    eventsPerMessage.set(messageId, (eventsPerMessage.get(messageId) ?? 0) + 1);
  const sizeOf = (event: PersonEvent): number => eventsPerMessage.get(messageOf.get(event)!)!;
  let pending: PersonEvent[] = tagged.map(({ event }) => event);
  for (let attempt = 1; pending.length > 0; attempt++) {
    if (outOfTime()) {
      failLate(pending);
      break;
    }
    if (attempt > maxAttempts) {
      logger.warn('Persons still conflicting after retries: messages left for SQS to retry', {
        projectId,
        events: pending.length,
      });
      failGroup(pending, new PersonsConflictError(maxAttempts));
      break;
    }
    let loaded: LoadedPersons;
    try {
      loaded = await loadPersons(tableName, projectId, [...new Set(pending.flatMap(distinctIdsOf))]);
    } catch (error) {
      logger.error('Reading persons failed', { projectId, reason: String(error) });
      failGroup(pending, error);
      break;
    }
    const conflicting: PersonEvent[] = [];
    // Groups not started when time runs out are left whole for the message's next delivery.
    const late: PersonEvent[] = [];
    await forEachLimited(
      smallMessagesFirst(groupByPerson(pending, loaded), sizeOf),
      groupConcurrency,
      async (group) => {
        if (outOfTime()) {
          late.push(...group);
          return;
        }
        try {
          const workspace = new PersonWorkspace(projectId, loaded);
          // A group run again (a conflict) records its events again: the last run is the one written.
          for (const event of group) {
            const personId = workspace.apply(event);
            resolved(event, { personId, properties: workspace.propertiesNow(personId) });
          }
          for (const warning of workspace.warnings)
            logger.warn('Ingestion warning', { projectId, ...warning });
          if (
            !(await writeWithEmailIndex(
              tableName,
              projectId,
              loaded,
              workspace.changes(),
              writePersonChanges,
            ))
          )
            conflicting.push(...group);
        } catch (error) {
          logger.error('Writing persons failed', { projectId, reason: String(error) });
          failGroup(group, error);
        }
      },
    );
    if (late.length > 0) failLate(late);
    pending = conflicting;
  }
  return failed;
}

/**
 * Applies the person side of every event in the batch. Returns the ids of messages some of whose
 * events' persons could not be written: those messages must be retried. `resolved`, when given,
 * receives each event's person and its properties after the event. Once `outOfTime()` answers true,
 * no further group of events starts: the messages of those not started are returned as failed (a
 * group started is written to its end, a few requests).
 */
export async function processPersons(
  tableName: string,
  messages: readonly MessageEvents[],
  resolved?: ResolvedPersons,
  outOfTime: () => boolean = () => false,
): Promise<StageFailures> {
  const byProject = new Map<number, Tagged[]>();
  const storedOf = new Map<PersonEvent, StoredEvent>();
  const record: RecordResolution = (event, person) => resolved?.set(storedOf.get(event)!, person);
  for (const message of messages) {
    for (const stored of message.events) {
      const event = personEventOf(stored);
      if (!event) continue;
      storedOf.set(event, stored);
      const tagged = byProject.get(message.projectId) ?? [];
      tagged.push({ event, messageId: message.messageId });
      byProject.set(message.projectId, tagged);
    }
  }
  const failed: StageFailures = new Map();
  await Promise.all(
    [...byProject].map(async ([projectId, tagged]) =>
      mergeFailures(failed, await processProject(tableName, projectId, tagged, record, outOfTime)),
    ),
  );
  return failed;
}
