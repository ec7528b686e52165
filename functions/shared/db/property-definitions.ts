import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PropertyDefinitionKind, PropertyType } from '../domain/property-definitions';
import { propertyDefinitionIdFor } from '../domain/property-definitions';
import { documentClient } from './client';
import { keys } from './keys';
import { batchGetItems, conditionally, queryAll } from './operations';

/**
 * Property definitions (one item per project, kind and name, keys.ts) and which properties each
 * event name was seen with (one item per project and event name holding the set of names: PostHog's
 * `posthog_eventproperty`). The consumer writes both when first seen (consumer/property-definitions.ts);
 * nothing else changes them.
 */

export interface PropertyDefinitionItem {
  PK: string;
  SK: string;
  id: string;
  name: string;
  kind: PropertyDefinitionKind;
  property_type: PropertyType | null;
  is_numerical: boolean;
  created_at: string;
}

/**
 * At most this many property names are kept per event name, each at most `maxPairNameBytes` long,
 * so an event's item stays well under DynamoDB's 400 KB.
 */
export const maxPropertiesPerEvent = 1_000;
export const maxPairNameBytes = 200;

export interface PropertyDefinitionsSeen {
  /** `property_type` of the definitions that exist among those asked for, by `kind\0name`. */
  readonly types: Map<string, PropertyType | null>;
  /** The names each of the event names asked for was seen with. */
  readonly eventProperties: Map<string, ReadonlySet<string>>;
  /** How many definitions the project has (its counter; 0 before the first). */
  readonly count: number;
}

export const seenKey = (first: string, second: string): string => `${first}\u0000${second}`;

type SeenItem = {
  PK: string;
  SK: string;
  count?: number;
  kind?: string;
  name?: string;
  property_type?: PropertyType | null;
  names?: Set<string>;
};

/**
 * Which of these definitions exist, the property names these events were seen with, and the
 * project's definition count, in BatchGetItems (eventually consistent: hints, the writes are
 * conditional or idempotent).
 */
export async function readPropertyDefinitionsSeen(
  tableName: string,
  projectId: number,
  definitions: readonly { kind: PropertyDefinitionKind; name: string }[],
  eventNames: readonly string[],
): Promise<PropertyDefinitionsSeen> {
  const countKey = keys.propertyDefinitionCount(projectId);
  const items = await batchGetItems<SeenItem>(
    tableName,
    [
      countKey,
      ...definitions.map(({ kind, name }) => keys.propertyDefinition(projectId, kind, name)),
      ...eventNames.map((event) => keys.eventProperties(projectId, event)),
    ],
    false,
    {
      expression: 'PK, SK, #count, kind, #name, property_type, #names',
      names: { '#count': 'count', '#name': 'name', '#names': 'names' },
    },
  );
  const eventsPrefix = keys.eventProperties(projectId, '').PK;
  const types = new Map<string, PropertyType | null>();
  const eventProperties = new Map<string, ReadonlySet<string>>();
  let count = 0;
  for (const item of items) {
    if (item.PK === countKey.PK && item.SK === countKey.SK) count = Number(item.count ?? 0);
    else if (item.PK.startsWith(eventsPrefix))
      eventProperties.set(item.PK.slice(eventsPrefix.length), item.names ?? new Set());
    else types.set(seenKey(String(item.kind), String(item.name)), item.property_type ?? null);
  }
  return { types, eventProperties, count };
}

/**
 * Creates a definition that does not exist yet, typed by the value it was first seen with. Returns
 * false, writing nothing, if it exists (another consumer, or a replay, was first).
 */
export async function createPropertyDefinition(
  tableName: string,
  projectId: number,
  kind: PropertyDefinitionKind,
  name: string,
  propertyType: PropertyType | null,
  now: Date,
): Promise<boolean> {
  const id = propertyDefinitionIdFor(projectId, kind, name);
  const item: PropertyDefinitionItem = {
    ...keys.propertyDefinition(projectId, kind, name),
    id,
    name,
    kind,
    property_type: propertyType,
    is_numerical: propertyType === 'Numeric',
    created_at: now.toISOString(),
  };
  return conditionally(() =>
    documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    ),
  );
}

/**
 * Types a definition created untyped (its first value was null, a list or an object), as PostHog's
 * `ON CONFLICT … DO UPDATE SET property_type = EXCLUDED.property_type WHERE property_type IS NULL`.
 * Returns false, writing nothing, if it has a type already.
 */
export async function typePropertyDefinition(
  tableName: string,
  projectId: number,
  kind: PropertyDefinitionKind,
  name: string,
  propertyType: PropertyType,
): Promise<boolean> {
  return conditionally(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.propertyDefinition(projectId, kind, name),
        UpdateExpression: 'SET property_type = :type, is_numerical = :numerical',
        ConditionExpression: 'attribute_exists(PK) AND attribute_type(property_type, :null)',
        ExpressionAttributeValues: {
          ':type': propertyType,
          ':numerical': propertyType === 'Numeric',
          ':null': 'NULL',
        },
      }),
    ),
  );
}

/**
 * Adds names to the set of properties an event name was seen with: one UpdateItem, idempotent (a
 * set keeps each name once), refused once the set holds `maxPropertiesPerEvent` names. Returns
 * whether it wrote.
 */
export async function addEventProperties(
  tableName: string,
  projectId: number,
  event: string,
  names: readonly string[],
): Promise<boolean> {
  return conditionally(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.eventProperties(projectId, event),
        UpdateExpression: 'ADD #names :names',
        ConditionExpression: 'attribute_not_exists(#names) OR size(#names) < :max',
        ExpressionAttributeNames: { '#names': 'names' },
        ExpressionAttributeValues: { ':names': new Set(names), ':max': maxPropertiesPerEvent },
      }),
    ),
  );
}

/** Every definition of one kind in a project, ordered by name. */
export async function listPropertyDefinitions(
  tableName: string,
  projectId: number,
  kind: PropertyDefinitionKind,
): Promise<PropertyDefinitionItem[]> {
  const prefix = keys.propertyDefinitionsPrefix(projectId, kind);
  return (await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
  })) as unknown as PropertyDefinitionItem[];
}

/** The properties seen with any of these event names (one BatchGetItem of their sets). */
export async function propertiesSeenWith(
  tableName: string,
  projectId: number,
  eventNames: readonly string[],
): Promise<Set<string>> {
  const items = await batchGetItems<{ names?: Set<string> }>(
    tableName,
    [...new Set(eventNames)].map((event) => keys.eventProperties(projectId, event)),
    false,
    { expression: '#names', names: { '#names': 'names' } },
  );
  return new Set(items.flatMap((item) => [...(item.names ?? [])]));
}
