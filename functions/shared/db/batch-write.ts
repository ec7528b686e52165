import type { BatchWriteCommandOutput } from '@aws-sdk/lib-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { setTimeout as sleep } from 'node:timers/promises';
import { documentClient } from './client';

/** An item to put, tagged with whoever must be told if it could not be stored (SQS message ids). */
export interface TaggedPut {
  readonly item: Record<string, unknown> & { PK: string; SK: string };
  readonly tag: string | readonly string[];
}

const maxItemsPerCall = 25;
const maxAttempts = 6;

/**
 * Puts every item with BatchWriteItem: 25 per call, `concurrency` calls at once, unprocessed items
 * retried with exponential backoff. Items sharing a key are collapsed (the last wins) because
 * BatchWriteItem refuses duplicate keys in one call. Returns the tags of items that could not be stored.
 */
export async function batchPutAll(
  tableName: string,
  puts: readonly TaggedPut[],
  concurrency = 4,
): Promise<Set<string>> {
  const byKey = new Map<string, TaggedPut>();
  for (const put of puts) byKey.set(`${put.item.PK}\u0000${put.item.SK}`, put);
  const unique = [...byKey.values()];
  const calls: TaggedPut[][] = [];
  for (let i = 0; i < unique.length; i += maxItemsPerCall) calls.push(unique.slice(i, i + maxItemsPerCall));

  const failed = new Set<string>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < calls.length) {
      const call = calls[next++]!;
      const leftOver = await putWithRetries(tableName, call);
      for (const put of leftOver)
        for (const tag of typeof put.tag === 'string' ? [put.tag] : put.tag) failed.add(tag);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, calls.length) }, worker));
  return failed;
}

async function putWithRetries(tableName: string, puts: TaggedPut[]): Promise<TaggedPut[]> {
  let pending = puts;
  for (let attempt = 0; attempt < maxAttempts && pending.length > 0; attempt++) {
    if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt) * (0.5 + Math.random()));
    let result: BatchWriteCommandOutput;
    try {
      result = await documentClient.send(
        new BatchWriteCommand({
          RequestItems: { [tableName]: pending.map((put) => ({ PutRequest: { Item: put.item } })) },
        }),
      );
    } catch (error) {
      // The SDK already retried throttling and transient faults: this call's items are not stored.
      if (attempt === maxAttempts - 1 || !isRetryable(error)) return pending;
      continue;
    }
    const unprocessed = new Set(
      (result.UnprocessedItems?.[tableName] ?? []).map((request) => {
        const item = request.PutRequest?.Item ?? {};
        return `${String(item.PK)}\u0000${String(item.SK)}`;
      }),
    );
    pending = pending.filter((put) => unprocessed.has(`${put.item.PK}\u0000${put.item.SK}`));
  }
  return pending;
}

function isRetryable(error: unknown): boolean {
  const name = (error as { name?: string }).name ?? '';
  return /Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded|InternalServerError|ServiceUnavailable/.test(
    name,
  );
}
