import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { PropertyStamp, TimedProperties } from '../domain/properties';
import { documentClient } from './client';
import { keys } from './keys';
import { atVersion, batchGetItems, conditionally, mainIndex, queryItems } from './operations';

/**
 * Groups (PostHog's `posthog_group`): one item per (project, group type name, group key), holding
 * the properties `$groupidentify` sets, when each got its value, and a version for optimistic
 * concurrency. Written by the consumer (consumer/groups.ts), each write conditional on the version
 * it read. Keyed by type name, not index: an event names its type, and the index is assigned
 * asynchronously (consumer/group-types.ts).
 */

export interface Group extends TimedProperties {
  readonly groupType: string;
  readonly groupKey: string;
  readonly createdAt: string;
  readonly version: number;
}

interface GroupItem {
  PK: string;
  SK: string;
  /** The listing of the group's type (GSI1), newest first: `<created_at>#<group key>`. */
  GSI1PK: string;
  GSI1SK: string;
  project: number;
  group_type: string;
  group_key: string;
  created_at: string;
  /** Properties as JSON text. */
  props: string;
  /** `{key: [epoch ms, 1 for $set | 0 for $set_once]}` as JSON text. */
  prop_times: string;
  version: number;
}

/** A partition key holds at most 2,048 bytes: groups whose key would be longer are not stored. */
const maxKeyBytes = 1_024;

/**
 * What one group's properties and their times may take as JSON text: well within DynamoDB's 400 KB
 * item, so a group can always be written again.
 */
export const maxGroupPropertiesBytes = 300 * 1024;

/** Whether a group of this type and key can be stored (its key fits). */
export function storableGroup(projectId: number, groupType: string, groupKey: string): boolean {
  return Buffer.byteLength(keys.group(projectId, groupType, groupKey).PK) <= maxKeyBytes;
}

function propTimesText(stamps: Readonly<Record<string, PropertyStamp>>): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(stamps).map(([key, { at, once }]) => [key, [at, once ? 0 : 1]])),
  );
}

/** The JSON texts a group's properties are stored as, and their size in bytes. */
export function storedGroupTexts(group: TimedProperties): {
  props: string;
  propTimes: string;
  bytes: number;
} {
  const props = JSON.stringify(group.properties);
  const propTimes = propTimesText(group.propertyStamps);
  return { props, propTimes, bytes: Buffer.byteLength(props) + Buffer.byteLength(propTimes) };
}

function fromGroupItem(item: GroupItem): Group {
  const times = JSON.parse(item.prop_times) as Record<string, [number, 0 | 1]>;
  return {
    groupType: item.group_type,
    groupKey: item.group_key,
    createdAt: item.created_at,
    properties: JSON.parse(item.props) as Record<string, unknown>,
    propertyStamps: Object.fromEntries(
      Object.entries(times).map(([key, [at, bySet]]) => [key, { at, once: bySet === 0 }]),
    ),
    unsetTimes: {},
    version: item.version,
  };
}

/**
 * One group, or undefined; strongly consistent unless `consistent` is false (the consumer reads it
 * to change it; the API only shows it).
 */
export async function readGroup(
  tableName: string,
  projectId: number,
  groupType: string,
  groupKey: string,
  consistent = true,
): Promise<Group | undefined> {
  if (!storableGroup(projectId, groupType, groupKey)) return undefined;
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.group(projectId, groupType, groupKey),
      ConsistentRead: consistent,
    }),
  );
  return Item ? fromGroupItem(Item as GroupItem) : undefined;
}

/**
 * Writes a group whole (its `version` the next one), only if the stored one is still at
 * `expectedVersion`, or, when that is undefined, only if there is none yet.
 */
export async function putGroup(
  tableName: string,
  projectId: number,
  group: Group,
  expectedVersion: number | undefined,
): Promise<boolean> {
  const { props, propTimes } = storedGroupTexts(group);
  const item: GroupItem = {
    ...keys.group(projectId, group.groupType, group.groupKey),
    ...keys.groupsOfType(projectId, group.groupType, group.createdAt, group.groupKey),
    project: projectId,
    group_type: group.groupType,
    group_key: group.groupKey,
    created_at: group.createdAt,
    props,
    prop_times: propTimes,
    version: group.version,
  };
  const condition = atVersion(expectedVersion);
  return conditionally(() =>
    documentClient.send(new PutCommand({ TableName: tableName, Item: item, ...condition })),
  );
}

/** Where a listing read starts: after this group (exclusive), going older or newer. */
export interface GroupListingStart {
  readonly createdAt: string;
  readonly groupKey: string;
}

/**
 * The groups of one type, newest first (`older`) or oldest first, from just past `start`: one Query
 * page of `pageSize` items at a time, as the caller pulls them.
 */
export async function* groupsOfType(
  tableName: string,
  projectId: number,
  groupType: string,
  options: { older: boolean; start?: GroupListingStart; pageSize: number },
): AsyncGenerator<Group> {
  const { older, start, pageSize } = options;
  const exclusiveStartKey = start && {
    ...keys.group(projectId, groupType, start.groupKey),
    ...keys.groupsOfType(projectId, groupType, start.createdAt, start.groupKey),
  };
  for await (const item of queryItems({
    TableName: tableName,
    IndexName: mainIndex,
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.groupsOfTypePartition(projectId, groupType) },
    ScanIndexForward: !older,
    Limit: pageSize,
    ...(exclusiveStartKey ? { ExclusiveStartKey: exclusiveStartKey } : {}),
  }))
    yield fromGroupItem(item as unknown as GroupItem);
}

/** Several groups at once (one BatchGetItem per 100), eventually consistent; absent ones are left out. */
export async function readGroups(
  tableName: string,
  projectId: number,
  wanted: readonly { readonly groupType: string; readonly groupKey: string }[],
): Promise<Group[]> {
  const itemKeys = wanted
    .filter(({ groupType, groupKey }) => storableGroup(projectId, groupType, groupKey))
    .map(({ groupType, groupKey }) => keys.group(projectId, groupType, groupKey));
  if (itemKeys.length === 0) return [];
  return (await batchGetItems<GroupItem>(tableName, itemKeys)).map(fromGroupItem);
}
