import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import type { KeyScope } from '../auth/scopes';
import { fullAccess } from '../auth/scopes';
import { maskKey, sha256Hex } from '../auth/secrets';
import { documentClient } from './client';
import { keys } from './keys';
import { isConditionalCheckFailed, mainIndex, queryAll, queryItems, withoutKeys } from './operations';

/** Personal API keys, stored by the hash of their value only. */

export interface PersonalApiKey {
  id: string;
  user_id: number;
  label: string;
  mask_value: string;
  created_at: string;
  last_used_at: string | null;
  /** What the key may do (auth/scopes.ts); `*` for keys stored before keys had scopes. */
  scopes: readonly KeyScope[];
}

/** A stored key: one written before keys had scopes has none, and keeps the access it had, `*`. */
function personalApiKeyOf(item: Record<string, unknown>): PersonalApiKey {
  const key = withoutKeys<Omit<PersonalApiKey, 'scopes'> & Partial<Pick<PersonalApiKey, 'scopes'>>>(item);
  return { ...key, scopes: key.scopes ?? fullAccess };
}

/** Stores a new key by its hash only; the caller shows `value` once and never again. */
export async function createPersonalApiKey(
  tableName: string,
  userId: number,
  label: string,
  value: string,
  scopes: readonly KeyScope[] = fullAccess,
): Promise<PersonalApiKey> {
  const key: PersonalApiKey = {
    id: randomUUID(),
    user_id: userId,
    label,
    mask_value: maskKey(value),
    created_at: new Date().toISOString(),
    last_used_at: null,
    scopes: [...scopes],
  };
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.personalApiKey(sha256Hex(value)),
        ...keys.personalApiKeysOfUser(userId, key.created_at, key.id),
        ...key,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return key;
}

/**
 * The key of this value, if it exists. `consistent` asks for a strongly consistent read: the private
 * API's, so that a key deleted a moment ago never authenticates again (capture caches keys for 5 s
 * anyway, and reads eventually consistently at half the price).
 */
export async function findPersonalApiKey(
  tableName: string,
  value: string,
  consistent = false,
): Promise<PersonalApiKey | undefined> {
  const result = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.personalApiKey(sha256Hex(value)),
      ...(consistent ? { ConsistentRead: true } : {}),
    }),
  );
  return result.Item ? personalApiKeyOf(result.Item) : undefined;
}

/** A user's personal API keys, newest first (PostHog's order), from GSI1. */
export async function listPersonalApiKeys(tableName: string, userId: number): Promise<PersonalApiKey[]> {
  const items = await queryAll({
    TableName: tableName,
    IndexName: mainIndex,
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': keys.personalApiKeysOfUserPartition(userId) },
    ScanIndexForward: false,
  });
  return items.map(personalApiKeyOf);
}

/**
 * Deletes one of the user's keys by id; false if the user has no such key. The key item is found
 * through the user's keys (its own key is the value's hash, which is not stored anywhere else), and
 * deleted on condition it is still that user's, so nobody deletes another user's key.
 */
export async function deletePersonalApiKey(
  tableName: string,
  userId: number,
  keyId: string,
): Promise<boolean> {
  const found = queryItems({
    TableName: tableName,
    IndexName: mainIndex,
    KeyConditionExpression: 'GSI1PK = :pk',
    FilterExpression: '#id = :id',
    ExpressionAttributeNames: { '#id': 'id' },
    ExpressionAttributeValues: { ':pk': keys.personalApiKeysOfUserPartition(userId), ':id': keyId },
  });
  for await (const item of found) {
    try {
      await documentClient.send(
        new DeleteCommand({
          TableName: tableName,
          Key: { PK: String(item.PK), SK: String(item.SK) },
          ConditionExpression: 'user_id = :user AND #id = :id',
          ExpressionAttributeNames: { '#id': 'id' },
          ExpressionAttributeValues: { ':user': userId, ':id': keyId },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionalCheckFailed(error)) return false;
      throw error;
    }
  }
  return false;
}

const lastUsedResolutionMs = 60 * 60 * 1000;

/** PostHog updates `last_used_at` at most hourly: one conditional write per key and hour. */
export async function touchPersonalApiKey(tableName: string, value: string, now = new Date()): Promise<void> {
  const threshold = new Date(now.getTime() - lastUsedResolutionMs).toISOString();
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.personalApiKey(sha256Hex(value)),
        UpdateExpression: 'SET last_used_at = :now',
        ConditionExpression:
          'attribute_exists(PK) AND (attribute_type(last_used_at, :null) OR last_used_at < :threshold)',
        ExpressionAttributeValues: { ':now': now.toISOString(), ':threshold': threshold, ':null': 'NULL' },
      }),
    );
  } catch (error) {
    if (!isConditionalCheckFailed(error)) throw error;
  }
}
