import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { TaggedPut } from './operations';
import { documentClient } from './client';
import { keys } from './keys';

/**
 * Sampled recent values of event properties, for `GET /events/values/` (`posthog/api/event.py`): one small
 * item per (project, property key, value) with the latest event time it was seen at. The consumer
 * writes a bounded sample per batch (functions/consumer/property-values.ts); DynamoDB's TTL removes
 * items a month after they were last written, and reads ignore values older than the lookback.
 */
export interface PropertyValueItem {
  PK: string;
  SK: string;
  last_seen: string;
  /** Epoch seconds: the table's TTL attribute. */
  expires: number;
}

const retentionSeconds = 31 * 24 * 60 * 60;

export function propertyValuePut(
  projectId: number,
  key: string,
  value: string,
  lastSeen: string,
  tag: string,
): TaggedPut {
  const item: PropertyValueItem = {
    ...keys.propertyValue(projectId, key, value),
    last_seen: lastSeen,
    expires: Math.floor(Date.now() / 1000) + retentionSeconds,
  };
  return { item: { ...item }, tag };
}

/** Values of `key` seen since `since`, most recent first (at most `limit`, read in one bounded query). */
export async function readPropertyValues(
  tableName: string,
  projectId: number,
  key: string,
  since: string,
  limit = 1000,
): Promise<string[]> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.propertyValues(projectId, key) },
      Limit: limit,
    }),
  );
  return ((result.Items ?? []) as PropertyValueItem[])
    .filter((item) => item.last_seen >= since)
    .sort((a, b) => (a.last_seen < b.last_seen ? 1 : a.last_seen > b.last_seen ? -1 : 0))
    .map((item) => item.SK);
}
