import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { eventDefinitionIdFor, startOfUtcDay, volume30Day, volumeWindow } from '../domain/definitions';
import { documentClient } from './client';
import { keys } from './keys';
import { batchGetItems, isConditionalCheckFailed, queryAll, queryItems } from './operations';

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

/** `last_seen_at` of the definitions that exist among `names` (eventually consistent: a hint only). */
export async function readLastSeen(
  tableName: string,
  projectId: number,
  names: readonly string[],
): Promise<Map<string, string | null>> {
  const items = await batchGetItems<Pick<EventDefinitionItem, 'name' | 'last_seen_at'>>(
    tableName,
    [...new Set(names)].map((name) => keys.eventDefinition(projectId, name)),
    false,
  );
  return new Map(items.map((item) => [item.name, item.last_seen_at ?? null]));
}

/**
 * Creates the definition if missing, else sets `last_seen_at` to now, but only if it is from an
 * earlier UTC day: a second consumer doing the same on the same day changes nothing. Returns whether
 * it wrote.
 */
export async function recordEventSeen(
  tableName: string,
  projectId: number,
  name: string,
  now: Date,
): Promise<boolean> {
  const id = eventDefinitionIdFor(projectId, name);
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.eventDefinition(projectId, name),
        UpdateExpression:
          'SET #id = if_not_exists(#id, :id), #name = if_not_exists(#name, :name), #project = if_not_exists(#project, :project), ' +
          'created_at = if_not_exists(created_at, :now), last_seen_at = :now',
        ConditionExpression:
          'attribute_not_exists(PK) OR attribute_not_exists(last_seen_at) OR last_seen_at < :today',
        ExpressionAttributeNames: { '#id': 'id', '#name': 'name', '#project': 'project' },
        ExpressionAttributeValues: {
          ':id': id,
          ':name': name,
          ':project': projectId,
          ':now': now.toISOString(),
          ':today': startOfUtcDay(now),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
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
  const queue = [...new Set(names)];
  await Promise.all(
    Array.from({ length: Math.min(8, queue.length) }, async () => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        volumes.set(name, await getEventVolume30Day(tableName, projectId, name, now));
      }
    }),
  );
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
 * A definition by id, within its project. No index: ids derive from names, and an index copy would
 * double the cost of every definition write; a project's definitions are few and small, so this
 * reads them (filtered server-side) at a cost bounded by their number.
 */
export async function getEventDefinitionById(
  tableName: string,
  projectId: number,
  definitionId: string,
): Promise<EventDefinitionItem | undefined> {
  const prefix = keys.eventDefinitionsPrefix(projectId);
  for await (const item of queryItems({
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    FilterExpression: '#id = :id',
    ExpressionAttributeNames: { '#id': 'id' },
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix, ':id': definitionId },
  })) {
    return item as EventDefinitionItem;
  }
  return undefined;
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
