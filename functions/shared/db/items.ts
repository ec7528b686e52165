import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';

/** An item as its entity: the table's key attributes (PK, SK, GSI1PK, GSI1SK) removed. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g2, ...entity } = item;
  return entity as T;
}

/** Whether an error is DynamoDB's refusal of a write whose condition did not hold. */
export function isConditionFailure(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/** Every item a Query matches, page after page (DynamoDB answers at most 1 MB per call). */
export async function* queryItems(input: QueryCommandInput): AsyncGenerator<Record<string, unknown>> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const result = await documentClient.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    yield* result.Items ?? [];
    startKey = result.LastEvaluatedKey;
  } while (startKey);
}

/** Every item a Query matches, as one list. */
export async function queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const item of queryItems(input)) items.push(item);
  return items;
}
