import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';
import { keys } from './keys';
import { batchGetItems, setExpression } from './operations';

/**
 * Hash-key overrides for experience continuity (`posthog/models/feature_flag/flag_matching.py`): flag key → the identifier a
 * continuity flag is hashed on instead of the distinct id. PostHog attaches them to persons; Flock
 * keys them by distinct id, writing the same override for both ids of an identify (`distinct_id` and
 * `$anon_distinct_id`), so they hold the moment posthog-js asks, before ingestion has created or
 * merged any person. One item per distinct id, one attribute per flag key, each set only once.
 */

export type HashKeyOverrides = Record<string, string>;

/** Flag keys become attribute names under this prefix, clear of the item's other attributes. */
const prefix = 'o#';

/** DynamoDB refuses partition keys above 2048 bytes: such a distinct id simply has no overrides. */
const maxPartitionKeyBytes = 2048;

const storable = (projectId: number, distinctId: string): boolean =>
  distinctId !== '' &&
  Buffer.byteLength(keys.flagHashKeyOverrides(projectId, distinctId).PK) <= maxPartitionKeyBytes;

function overridesOf(item: Record<string, unknown> | undefined): HashKeyOverrides {
  const overrides: HashKeyOverrides = {};
  for (const [name, value] of Object.entries(item ?? {})) {
    if (name.startsWith(prefix) && typeof value === 'string') overrides[name.slice(prefix.length)] = value;
  }
  return overrides;
}

/** The overrides of each distinct id (an id without any is absent from the map). */
export async function readHashKeyOverrides(
  tableName: string,
  projectId: number,
  distinctIds: readonly string[],
): Promise<Map<string, HashKeyOverrides>> {
  const wanted = [...new Set(distinctIds)].filter((id) => storable(projectId, id));
  if (wanted.length === 0) return new Map();
  const items = await batchGetItems<Record<string, unknown>>(
    tableName,
    wanted.map((id) => keys.flagHashKeyOverrides(projectId, id)),
    true,
  );
  return new Map(items.map((item) => [String(item.distinct_id), overridesOf(item)]));
}

/**
 * Sets each flag key's hash key unless the distinct id already has one for that flag (first write
 * wins, PostHog's `ON CONFLICT DO NOTHING`), and returns all its overrides as stored afterwards.
 */
export async function addHashKeyOverrides(
  tableName: string,
  projectId: number,
  distinctId: string,
  overrides: Readonly<HashKeyOverrides>,
): Promise<HashKeyOverrides> {
  const entries = Object.entries(overrides);
  if (entries.length === 0 || !storable(projectId, distinctId)) return {};
  const result = await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.flagHashKeyOverrides(projectId, distinctId),
      ...setExpression([
        { attribute: 'project', value: projectId },
        { attribute: 'distinct_id', value: distinctId },
        ...entries.map(([flagKey, hashKey]) => ({
          attribute: `${prefix}${flagKey}`,
          value: hashKey,
          ifNotExists: true,
        })),
      ]),
      ReturnValues: 'ALL_NEW',
    }),
  );
  return overridesOf(result.Attributes);
}
