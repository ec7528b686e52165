import { boundedCache } from '../shared/cache';
import { addToCount } from '../shared/db/definitions';
import { keys } from '../shared/db/keys';
import {
  addEventProperties,
  createPropertyDefinition,
  maxPairNameBytes,
  readPropertyDefinitionsSeen,
  seenKey,
  typePropertyDefinition,
} from '../shared/db/property-definitions';
import { tracksDefinition } from '../shared/domain/definitions';
import type { PropertyDefinitionKind, PropertyType } from '../shared/domain/property-definitions';
import {
  detectPropertyType,
  fitsDefinition,
  forEachPropertySeenIn,
  maxPropertyDefinitionsPerProject,
} from '../shared/domain/property-definitions';
import { forEachLimited } from '../shared/concurrency';
import { logger } from '../shared/logger';
import type { StageFailures } from '../shared/stage-failures';
import { failMessages, mergeFailures } from '../shared/stage-failures';
import type { MessageEvents } from './types';

/**
 * Property definitions and event-property pairs, written when first seen (PostHog's
 * `property-definitions-manager.ts`), never a write per event:
 * - what this container knows exists costs nothing (a bounded cache of facts that cannot become
 *   false: definitions and pairs are never deleted);
 * - the rest is read in one BatchGetItem per project, and only what is missing is written: a
 *   definition by a conditional put typed by the first value the batch holds for it (the first
 *   writer wins, so a replay or a concurrent consumer changes nothing), the new properties of an
 *   event name by one set `ADD` per name (idempotent);
 * - a definition created untyped (its first value null, a list or an object) is typed, once, by the
 *   first later value that has a type.
 * A project holds at most `maxPropertyDefinitionsPerProject` definitions (counted as event
 * definitions are, functions/consumer/definitions.ts). A failed write fails the messages that saw
 * the property, which are delivered again; every write is idempotent.
 */
/**
 * New definitions and event/property pairs one invocation writes per project, at most. Without it,
 * one batch of events carrying thousands of new property names (anyone holding a project token can
 * send them) held the consumer for its whole timeout in conditional puts, failing every other
 * project's events in the batch. Names past it are not cached as known, so they are written when
 * they are seen again, by a later invocation.
 */
export const maxNewPerInvocation = 200;

export class PropertyDefinitionRecorder {
  /** `project\0kind\0name` of typed definitions and `project\0event\0name` of pairs known to exist. */
  private readonly known = boundedCache<string, true>({ max: 50_000 });
  /** Definitions known to exist untyped: only a typed value is worth a write for them. */
  private readonly untyped = boundedCache<string, true>({ max: 10_000 });

  constructor(private readonly maxDefinitions = maxPropertyDefinitionsPerProject) {}

  async record(tableName: string, messages: readonly MessageEvents[], now: Date): Promise<StageFailures> {
    const failed: StageFailures = new Map();
    const projects = new Map<number, ProjectSeen>();
    for (const message of messages) {
      const project = projects.get(message.projectId) ?? new ProjectSeen();
      projects.set(message.projectId, project);
      for (const event of message.events) {
        if (!tracksDefinition(event.event)) continue;
        // Most events of a name carry the same property names: each is looked up once per batch.
        const settledPairs = fitsDefinition(event.event) ? project.settledPairsOf(event.event) : undefined;
        forEachPropertySeenIn(event.event, event.properties, (kind, name, value) => {
          const settled = project.settled[kind];
          if (!settled.has(name)) {
            const definition = `${message.projectId}\u0000${seenKey(kind, name)}`;
            if (this.known.has(definition)) settled.add(name);
            else {
              const type = detectPropertyType(value, name);
              if (!this.untyped.has(definition) || type !== null)
                project.definition(kind, name, type, message.messageId);
            }
          }
          if (kind === 'event' && settledPairs && !settledPairs.has(name)) {
            if (
              Buffer.byteLength(name) > maxPairNameBytes ||
              this.known.has(`${message.projectId}\u0000${seenKey(event.event, name)}`)
            )
              settledPairs.add(name);
            else project.pair(event.event, name, message.messageId);
          }
        });
      }
    }
    await Promise.all(
      [...projects].map(async ([projectId, project]) => {
        if (project.definitions.size === 0 && project.pairs.size === 0) return;
        mergeFailures(failed, await this.recordProject(tableName, projectId, project, now));
      }),
    );
    return failed;
  }

  private async recordProject(
    tableName: string,
    projectId: number,
    project: ProjectSeen,
    now: Date,
  ): Promise<StageFailures> {
    const failed: StageFailures = new Map();
    const definitions = [...project.definitions.values()].slice(0, maxNewPerInvocation);
    const pairs = [...project.pairs.values()].slice(0, maxNewPerInvocation);
    if (project.definitions.size > definitions.length || project.pairs.size > pairs.length)
      logger.warn('Property definitions deferred: more new names in one batch than it records', {
        projectId,
        definitions: project.definitions.size,
        pairs: project.pairs.size,
        maxNewPerInvocation,
      });
    let seen: Awaited<ReturnType<typeof readPropertyDefinitionsSeen>>;
    try {
      seen = await readPropertyDefinitionsSeen(tableName, projectId, definitions, [
        ...new Set(pairs.map((pair) => pair.event)),
      ]);
    } catch (error) {
      logger.error('Reading property definitions failed', { projectId, reason: String(error) });
      for (const seenBy of [...definitions, ...pairs]) failMessages(failed, seenBy.messages, error);
      return failed;
    }
    const missing = definitions.filter(
      (definition) => !seen.types.has(seenKey(definition.kind, definition.name)),
    );
    const room = Math.max(0, this.maxDefinitions - seen.count);
    if (missing.length > room) {
      logger.warn('Property definitions not created: the project has as many as it may have', {
        projectId,
        maxDefinitions: this.maxDefinitions,
        count: missing.length - room,
      });
    }
    const toCreate = new Set(missing.slice(0, room));
    let created = 0;
    await forEachLimited(definitions, 8, async (definition) => {
      const cacheKey = `${projectId}\u0000${seenKey(definition.kind, definition.name)}`;
      const existing = seen.types.get(seenKey(definition.kind, definition.name));
      try {
        if (toCreate.has(definition)) {
          if (
            await createPropertyDefinition(
              tableName,
              projectId,
              definition.kind,
              definition.name,
              definition.type,
              now,
            )
          )
            created += 1;
        } else if (existing === null && definition.type !== null) {
          await typePropertyDefinition(
            tableName,
            projectId,
            definition.kind,
            definition.name,
            definition.type,
          );
        } else if (existing === undefined) {
          return; // beyond the cap: asked again when seen again
        }
        const typed = definition.type !== null || (existing !== undefined && existing !== null);
        if (typed) this.known.set(cacheKey, true);
        else this.untyped.set(cacheKey, true);
      } catch (error) {
        logger.error('Writing a property definition failed', {
          projectId,
          name: definition.name,
          reason: String(error),
        });
        failMessages(failed, definition.messages, error);
      }
    });
    if (created > 0) {
      try {
        await addToCount(tableName, keys.propertyDefinitionCount(projectId), created);
      } catch (error) {
        // The definitions exist; a count left low only lets the project pass its cap by this batch.
        logger.warn('Counting new property definitions failed', {
          projectId,
          created,
          reason: String(error),
        });
      }
    }
    const byEvent = new Map<string, PairSeen[]>();
    for (const pair of pairs) byEvent.set(pair.event, [...(byEvent.get(pair.event) ?? []), pair]);
    await forEachLimited([...byEvent], 8, async ([event, ofEvent]) => {
      const known = seen.eventProperties.get(event);
      const adding = ofEvent.filter((pair) => !known?.has(pair.name));
      try {
        if (adding.length > 0)
          await addEventProperties(
            tableName,
            projectId,
            event,
            adding.map((pair) => pair.name),
          );
        // Known from now on, added or refused because the event has as many names as it may have.
        for (const pair of ofEvent) this.known.set(`${projectId}\u0000${seenKey(event, pair.name)}`, true);
      } catch (error) {
        logger.error('Adding the properties of an event failed', { projectId, event, reason: String(error) });
        for (const pair of adding) failMessages(failed, pair.messages, error);
      }
    });
    return failed;
  }
}

interface DefinitionSeen {
  readonly kind: PropertyDefinitionKind;
  readonly name: string;
  /** The type of the first value the batch holds, or of its first typed value. */
  type: PropertyType | null;
  readonly messages: Set<string>;
}

interface PairSeen {
  readonly event: string;
  readonly name: string;
  readonly messages: Set<string>;
}

/** What one project's events in the batch define, each once, with the messages that saw it. */
class ProjectSeen {
  readonly definitions = new Map<string, DefinitionSeen>();
  readonly pairs = new Map<string, PairSeen>();
  /** Names of each kind whose definitions the container knows: nothing to do for them this batch. */
  readonly settled: Record<PropertyDefinitionKind, Set<string>> = { event: new Set(), person: new Set() };
  /** Per event name, property names known as its pairs or too long for one. */
  private readonly settledPairs = new Map<string, Set<string>>();

  settledPairsOf(event: string): Set<string> {
    let settled = this.settledPairs.get(event);
    if (!settled) {
      settled = new Set();
      this.settledPairs.set(event, settled);
    }
    return settled;
  }

  definition(kind: PropertyDefinitionKind, name: string, type: PropertyType | null, messageId: string): void {
    const key = seenKey(kind, name);
    const known = this.definitions.get(key);
    if (!known) this.definitions.set(key, { kind, name, type, messages: new Set([messageId]) });
    else {
      if (known.type === null) known.type = type;
      known.messages.add(messageId);
    }
  }

  pair(event: string, name: string, messageId: string): void {
    const key = seenKey(event, name);
    const known = this.pairs.get(key) ?? { event, name, messages: new Set<string>() };
    known.messages.add(messageId);
    this.pairs.set(key, known);
  }
}
