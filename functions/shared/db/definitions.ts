import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { eventDefinitionIdFor, startOfUtcDay, volume30Day, volumeWindow } from '../domain/definitions';
import { documentClient } from './client';
import { keys } from './keys';
import { forEachLimited } from '../concurrency';
import { batchGetItems, conditionally, mainIndex, queryAll } from './operations';

/**
 * Event definitions (one item per project and name, keys.ts) and their daily volume counters.
 * The consumer creates a definition on first sight and bumps `last_seen_at` at most once per UTC day;
 * fields the private API edits (description, tags, owner, verified…) are never touched here.
 */

export interface EventDefinitionItem {
  PK: string;
  SK: string;
  id: string;
  project: number;
  name: string;
  created_at: string;
  last_seen_at: string | null;
  [field: string]: unknown;
}

export interface DefinitionsSeen {
  /** `last_seen_at` of the definitions that exist among the names asked for. */
  readonly lastSeen: Map<string, string | null>;
  /** How many definitions the project has (its counter; 0 before the first). */
  readonly count: number;
}

/**
 * `last_seen_at` of the definitions that exist among `names`, and the project's definition count,
 * in one BatchGetItem (eventually consistent: hints only).
 */
export async function readDefinitionsSeen(
  tableName: string,
  projectId: number,
  names: readonly string[],
): Promise<DefinitionsSeen> {
  const countKey = keys.eventDefinitionCount(projectId);
  const items = await batchGetItems<Partial<EventDefinitionItem> & { SK: string; count?: number }>(
    tableName,
    [countKey, ...[...new Set(names)].map((name) => keys.eventDefinition(projectId, name))],
    false,
  );
  const lastSeen = new Map<string, string | null>();
  let count = 0;
  for (const item of items) {
    if (item.SK === countKey.SK) count = Number(item.count ?? 0);
    else lastSeen.set(String(item.name), item.last_seen_at ?? null);
  }
  return { lastSeen, count };
}

/**
 * Creates a definition that does not exist yet (indexed by its id). Returns false, writing nothing,
 * if it exists.
 */
export async function createEventDefinition(
  tableName: string,
  projectId: number,
  name: string,
  now: Date,
): Promise<boolean> {
  const id = eventDefinitionIdFor(projectId, name);
  return conditionally(() =>
    documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: {
          ...keys.eventDefinition(projectId, name),
          ...keys.eventDefinitionById(projectId, id),
          id,
          name,
          project: projectId,
          created_at: now.toISOString(),
          last_seen_at: now.toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    ),
  );
}

/** Adds `created` to the project's event definition count (one atomic write per batch). */
export async function addToDefinitionCount(
  tableName: string,
  projectId: number,
  created: number,
): Promise<void> {
  await addToCount(tableName, keys.eventDefinitionCount(projectId), created);
}

/** Adds `created` to the `count` of the item at `key` (created at 0 if missing): one atomic write. */
export async function addToCount(
  tableName: string,
  key: { PK: string; SK: string },
  created: number,
): Promise<void> {
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key,
      UpdateExpression: 'ADD #count :created',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':created': created },
    }),
  );
}

/**
 * Sets `last_seen_at` to now, but only if it is from an earlier UTC day: a second consumer doing the
 * same on the same day changes nothing. Creates the definition if it is missing, and indexes it by
 * id if it was stored before definitions were indexed (`if_not_exists`: the same values every time).
 * Returns whether it wrote.
 */
export async function recordEventSeen(
  tableName: string,
  projectId: number,
  name: string,
  now: Date,
): Promise<boolean> {
  const id = eventDefinitionIdFor(projectId, name);
  return conditionally(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.eventDefinition(projectId, name),
        UpdateExpression:
          'SET #id = if_not_exists(#id, :id), #name = if_not_exists(#name, :name), #project = if_not_exists(#project, :project), ' +
          'created_at = if_not_exists(created_at, :now), last_seen_at = :now, ' +
          'GSI1PK = if_not_exists(GSI1PK, :gsi1pk), GSI1SK = if_not_exists(GSI1SK, :gsi1sk)',
        ConditionExpression:
          'attribute_not_exists(PK) OR attribute_not_exists(last_seen_at) OR last_seen_at < :today',
        ExpressionAttributeNames: { '#id': 'id', '#name': 'name', '#project': 'project' },
        ExpressionAttributeValues: {
          ':id': id,
          ':gsi1pk': keys.eventDefinitionById(projectId, id).GSI1PK,
          ':gsi1sk': keys.eventDefinitionById(projectId, id).GSI1SK,
          ':name': name,
          ':project': projectId,
          ':now': now.toISOString(),
          ':today': startOfUtcDay(now),
        },
      }),
    ),
  );
}

/** Adds `count` events to a (name, UTC day) volume counter: one atomic write however many events. */
export async function addEventVolume(
  tableName: string,
  projectId: number,
  name: string,
  day: string,
  count: number,
): Promise<void> {
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.eventVolume(projectId, name, day),
      UpdateExpression: 'ADD #count :count',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':count': count },
    }),
  );
}

/** Daily counts of one event name within the 30-day window ending at `now`: one Query (≤ 30 items). */
export async function readDailyVolumes(
  tableName: string,
  projectId: number,
  name: string,
  now: Date,
): Promise<{ day: string; count: number }[]> {
  const { from, to } = volumeWindow(now);
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.eventVolumePartition(projectId, name),
        ':from': from,
        ':to': to,
      },
    }),
  );
  return (result.Items ?? []).map((item) => ({ day: String(item.SK), count: Number(item.count) }));
}

/** `volume_30_day` of one event name: the events of the last 30 UTC days (including today). */
export async function getEventVolume30Day(
  tableName: string,
  projectId: number,
  name: string,
  now: Date,
): Promise<number> {
  return volume30Day(await readDailyVolumes(tableName, projectId, name, now), now);
}

/** `volume_30_day` of many names (one page of definitions), a Query each, at most 8 at once. */
export async function getEventVolumes30Day(
  tableName: string,
  projectId: number,
  names: readonly string[],
  now: Date,
): Promise<Map<string, number>> {
  const volumes = new Map<string, number>();
  await forEachLimited([...new Set(names)], 8, async (name) => {
    volumes.set(name, await getEventVolume30Day(tableName, projectId, name, now));
  });
  return volumes;
}

/** A definition by project and name. */
export async function getEventDefinition(
  tableName: string,
  projectId: number,
  name: string,
): Promise<EventDefinitionItem | undefined> {
  const result = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: keys.eventDefinition(projectId, name) }),
  );
  return result.Item as EventDefinitionItem | undefined;
}

/**
 * A definition by id, within its project: the id's index entry names the item (one Query of at most
 * one key), which is then read from the table itself, so an edit just made is seen.
 */
export async function getEventDefinitionById(
  tableName: string,
  projectId: number,
  definitionId: string,
): Promise<EventDefinitionItem | undefined> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: mainIndex,
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.eventDefinitionByIdPartition(projectId, definitionId) },
      ProjectionExpression: 'PK, SK',
      Limit: 1,
    }),
  );
  const [entry] = result.Items ?? [];
  if (!entry) return undefined;
  const item = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: { PK: entry.PK as string, SK: entry.SK as string } }),
  );
  return item.Item as EventDefinitionItem | undefined;
}

/** Every definition of a project, ordered by name. */
export async function listEventDefinitions(
  tableName: string,
  projectId: number,
): Promise<EventDefinitionItem[]> {
  const prefix = keys.eventDefinitionsPrefix(projectId);
  return (await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
  })) as EventDefinitionItem[];
}
