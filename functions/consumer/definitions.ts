import type { LRUCache } from 'lru-cache';
import { boundedCache } from '../shared/cache';
import {
  addEventVolume,
  addToDefinitionCount,
  createEventDefinition,
  readDefinitionsSeen,
  recordEventSeen,
} from '../shared/db/definitions';
import {
  countByNameAndDay,
  maxEventDefinitionsPerProject,
  needsLastSeenBump,
  tracksDefinition,
  utcDay,
} from '../shared/domain/definitions';
import { logger } from '../shared/logger';
import type { StageFailures } from '../shared/stage-failures';
import { failMessages, mergeFailures } from '../shared/stage-failures';
import type { MessageEvents } from './types';

/**
 * Event definitions and daily volumes for one consumer batch (as PostHog's plugin-server
 * `property-definitions-manager.ts` keeps them), never a write per
 * event:
 * - volumes: one `ADD` per (project, event name, UTC day) however many events the batch holds;
 * - definitions: a name this container already bumped today costs nothing; otherwise one read,
 *   and a conditional write only if the definition is missing or was last seen on an earlier day.
 *   A project holds at most `maxEventDefinitions` (new names beyond it get no definition; their
 *   events are stored all the same): the count is read with the definitions and added to once per
 *   batch, so concurrent consumers may pass the cap by what one batch each creates.
 *
 * Replays: the definition write is idempotent within a day, but a counter `ADD` is not. A message
 * retried after its counters were added counts its events again; counters are estimates that may
 * run high by the events of retried messages (rare: a retry needs a failed write), which we accept
 * rather than pay a conditional write per message to make them exact.
 */

/** Names this container has seen bumped today, per project (bounded). */
export class SeenTodayCache {
  private readonly days: LRUCache<string, string>;

  constructor(maxEntries = 10_000) {
    this.days = boundedCache({ max: maxEntries });
  }

  has(projectId: number, name: string, day: string): boolean {
    return this.days.get(`${projectId}\u0000${name}`) === day;
  }

  add(projectId: number, name: string, day: string): void {
    this.days.set(`${projectId}\u0000${name}`, day);
  }
}

interface ProjectBatch {
  readonly names: Map<string, Set<string>>;
  readonly messages: MessageEvents[];
}

function byProject(messages: readonly MessageEvents[]): Map<number, ProjectBatch> {
  const projects = new Map<number, ProjectBatch>();
  for (const message of messages) {
    const project = projects.get(message.projectId) ?? {
      names: new Map<string, Set<string>>(),
      messages: [],
    };
    project.messages.push(message);
    for (const event of message.events) {
      if (!tracksDefinition(event.event)) continue;
      const senders = project.names.get(event.event) ?? new Set<string>();
      senders.add(message.messageId);
      project.names.set(event.event, senders);
    }
    projects.set(message.projectId, project);
  }
  return projects;
}

async function recordSeen(
  tableName: string,
  projectId: number,
  names: Map<string, Set<string>>,
  now: Date,
  cache: SeenTodayCache,
  maxDefinitions: number,
): Promise<StageFailures> {
  const failed: StageFailures = new Map();
  const today = utcDay(now);
  const unknown = [...names.keys()].filter((name) => !cache.has(projectId, name, today));
  if (unknown.length === 0) return failed;
  let seen: Awaited<ReturnType<typeof readDefinitionsSeen>>;
  try {
    seen = await readDefinitionsSeen(tableName, projectId, unknown);
  } catch (error) {
    logger.error('Reading event definitions failed', { projectId, reason: String(error) });
    for (const name of unknown) failMessages(failed, names.get(name)!, error);
    return failed;
  }
  const missing = unknown.filter((name) => !seen.lastSeen.has(name));
  const room = Math.max(0, maxDefinitions - seen.count);
  const beyondCap = missing.slice(room);
  if (beyondCap.length > 0) {
    logger.warn('Event definitions not created: the project has as many as it may have', {
      projectId,
      maxDefinitions,
      names: beyondCap.slice(0, 10),
      count: beyondCap.length,
    });
    // Not asked again today by this container; their events are stored without a definition.
    for (const name of beyondCap) cache.add(projectId, name, today);
  }
  const toCreate = new Set(missing.slice(0, room));
  let created = 0;
  await Promise.all(
    unknown
      .filter((name) => seen.lastSeen.has(name) || toCreate.has(name))
      .map(async (name) => {
        try {
          if (toCreate.has(name) && (await createEventDefinition(tableName, projectId, name, now)))
            created += 1;
          else if (needsLastSeenBump(seen.lastSeen.get(name), now))
            await recordEventSeen(tableName, projectId, name, now);
          cache.add(projectId, name, today);
        } catch (error) {
          logger.error('Writing an event definition failed', { projectId, name, reason: String(error) });
          failMessages(failed, names.get(name)!, error);
        }
      }),
  );
  if (created > 0) {
    try {
      await addToDefinitionCount(tableName, projectId, created);
    } catch (error) {
      // The definitions exist; a count left low only lets the project pass its cap by this batch.
      logger.warn('Counting new event definitions failed', { projectId, created, reason: String(error) });
    }
  }
  return failed;
}

async function addVolumes(
  tableName: string,
  projectId: number,
  messages: readonly MessageEvents[],
): Promise<StageFailures> {
  const failed: StageFailures = new Map();
  const senders = new Map<string, Set<string>>();
  for (const message of messages) {
    for (const event of message.events) {
      const key = `${event.event}\u0000${utcDay(event.timestamp)}`;
      senders.set(key, (senders.get(key) ?? new Set<string>()).add(message.messageId));
    }
  }
  // The same uuid twice (an SDK retry landing in the same batch) is one stored event: count it once.
  const unique = new Map(
    messages.flatMap((message) => message.events.map((event) => [event.uuid, event] as const)),
  );
  const counts = countByNameAndDay(unique.values());
  const updates = [...counts].flatMap(([name, days]) =>
    [...days].map(([day, count]) => ({ name, day, count })),
  );
  await Promise.all(
    updates.map(async ({ name, day, count }) => {
      try {
        await addEventVolume(tableName, projectId, name, day, count);
      } catch (error) {
        logger.error('Adding an event volume failed', { projectId, name, day, reason: String(error) });
        failMessages(failed, senders.get(`${name}\u0000${day}`)!, error);
      }
    }),
  );
  return failed;
}

/**
 * Records the definitions and volumes of the batch's stored events. Returns the ids of messages
 * whose definition or counter writes failed.
 */
export async function recordDefinitions(
  tableName: string,
  messages: readonly MessageEvents[],
  now: Date,
  cache: SeenTodayCache,
  maxDefinitions: number = maxEventDefinitionsPerProject,
): Promise<StageFailures> {
  const failed: StageFailures = new Map();
  await Promise.all(
    [...byProject(messages)].map(async ([projectId, project]) => {
      const results = await Promise.all([
        recordSeen(tableName, projectId, project.names, now, cache, maxDefinitions),
        addVolumes(tableName, projectId, project.messages),
      ]);
      for (const result of results) mergeFailures(failed, result);
    }),
  );
  return failed;
}
