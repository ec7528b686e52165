import { BatchGetItemCommand, BatchWriteItemCommand } from '@aws-sdk/client-dynamodb';
import type { QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { BatchGetCommand, BatchWriteCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { backoff as retryBackoff } from '../backoff';
import { chunked } from '../chunks';
import { forEachLimited } from '../concurrency';
import { documentClient, lowLevelClient } from './client';
import { marshallItem } from './marshall';
import { singleTable } from './schema';

/**
 * The DynamoDB operations every repository shares: conditional-write detection, SET expressions,
 * paginated queries, and batch reads and writes with capped, backed-off retries of unprocessed keys.
 */

/** The single table's one global secondary index (see schema.ts). */
export const mainIndex: string = singleTable.globalSecondaryIndexes[0]!.indexName;

/** An item as its entity: the table's key attributes (PK, SK, GSI1PK, GSI1SK) removed. */
export function withoutKeys<T>(item: Record<string, unknown>): T {
  const { PK: _pk, SK: _sk, GSI1PK: _g1, GSI1SK: _g2, ...entity } = item;
  return entity as T;
}

/** Whether an error is DynamoDB's refusal of a write whose condition did not hold. */
export function isConditionalCheckFailed(error: unknown): boolean {
  return (error as { name?: string } | null)?.name === 'ConditionalCheckFailedException';
}

/** Runs a conditional write: true if written, false if its condition did not hold. */
export async function conditionally(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/**
 * The condition of a whole-item write under optimistic concurrency: the stored item is still at
 * `expectedVersion` (its `version` attribute), or, when that is undefined, there is none yet.
 */
export function atVersion(expectedVersion: number | undefined): {
  ConditionExpression: string;
  ExpressionAttributeValues?: Record<string, unknown>;
} {
  return expectedVersion === undefined
    ? { ConditionExpression: 'attribute_not_exists(PK)' }
    : {
        ConditionExpression: 'version = :expected',
        ExpressionAttributeValues: { ':expected': expectedVersion },
      };
}

/** One assignment of a SET expression: `value` as is, or kept if the attribute already has one. */
export interface SetAssignment {
  readonly attribute: string;
  readonly value: unknown;
  readonly ifNotExists?: boolean;
}

/** One plain assignment per field of `fields`. */
export function assignmentsOf(fields: object): SetAssignment[] {
  return Object.entries(fields).map(([attribute, value]: [string, unknown]) => ({ attribute, value }));
}

/**
 * `SET #f0 = :v0, ...` over any attribute names, with its names and values. Pass the expression's other
 * names and values (a condition's) as `names`/`values`; placeholders here are `#f<i>`/`:v<i>`.
 */
export function setExpression(
  assignments: readonly SetAssignment[],
  names: Record<string, string> = {},
  values: Record<string, unknown> = {},
): {
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
} {
  const ExpressionAttributeNames = { ...names };
  const ExpressionAttributeValues = { ...values };
  const sets = assignments.map(({ attribute, value, ifNotExists }, i) => {
    ExpressionAttributeNames[`#f${i}`] = attribute;
    ExpressionAttributeValues[`:v${i}`] = value;
    return ifNotExists ? `#f${i} = if_not_exists(#f${i}, :v${i})` : `#f${i} = :v${i}`;
  });
  return { UpdateExpression: `SET ${sets.join(', ')}`, ExpressionAttributeNames, ExpressionAttributeValues };
}

/** Every item a Query matches, page after page (DynamoDB answers at most 1 MB per call). */
export async function* queryItems(input: QueryCommandInput): AsyncGenerator<Record<string, unknown>> {
  for await (const page of paginateQuery({ client: documentClient }, input)) yield* page.Items ?? [];
}

/** Every item of one partition, only the `attribute` of each (a cheap, complete read of small items). */
export async function* partitionValues(
  tableName: string,
  partition: string,
  attribute: string,
): AsyncGenerator<string> {
  for await (const item of queryItems({
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': partition },
    ProjectionExpression: '#a',
    ExpressionAttributeNames: { '#a': attribute },
  }))
    yield String(item[attribute]);
}

/** Every item a Query matches, as one list. */
export async function queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const item of queryItems(input)) items.push(item);
  return items;
}

/** Every item of a partition whose sort key starts with a prefix (a `keys.*Prefix` pair), as one list. */
export function queryPrefix(
  tableName: string,
  prefix: { readonly PK: string; readonly SKPrefix: string },
  consistentRead = false,
): Promise<Record<string, unknown>[]> {
  return queryAll({
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': prefix.PK, ':prefix': prefix.SKPrefix },
    ConsistentRead: consistentRead,
  });
}

const maxAttempts = 6;

/** Waits before retry `attempt` (1-based): 50 ms, doubling, at most 1 s, with jitter. */
const backoff = (attempt: number): Promise<void> => retryBackoff(attempt, 50, 1000);

const maxKeysPerGet = 100;

/** The attributes a read returns (it costs the same; it transfers and parses less). */
export interface Projection {
  readonly expression: string;
  readonly names?: Readonly<Record<string, string>>;
}

/**
 * The projection of these attributes, each through a placeholder name (an attribute may be one of
 * DynamoDB's reserved words, as `ts` and `owner` are).
 */
export function projectionOf(attributes: readonly string[]): Projection {
  const names = Object.fromEntries(attributes.map((attribute, i) => [`#a${i}`, attribute]));
  return { expression: Object.keys(names).join(', '), names };
}
/** BatchGetItem calls of one read in flight at once, however many keys it asks for. */
const maxGetsInFlight = 8;

/**
 * The client a batch call goes through: the document client, or the low-level one (client.ts), its
 * items marshalled by marshall.ts as the document client would, for the calls paid per event. The
 * same requests, answers, retries and errors either way.
 */
export type BatchClient = 'document' | 'low-level';

type Item = Record<string, unknown>;

/** One BatchGetItem call: the items found and the keys left unprocessed, in document form. */
async function sendBatchGet(
  client: BatchClient,
  tableName: string,
  keys: readonly Item[],
  consistentRead: boolean,
  projection: Projection | undefined,
): Promise<{ items: Item[]; unprocessed: Item[] }> {
  const request = {
    ConsistentRead: consistentRead,
    ...(projection
      ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names }
      : {}),
  };
  if (client === 'document') {
    const result = await documentClient.send(
      new BatchGetCommand({ RequestItems: { [tableName]: { Keys: [...keys], ...request } } }),
    );
    return {
      items: result.Responses?.[tableName] ?? [],
      unprocessed: result.UnprocessedKeys?.[tableName]?.Keys ?? [],
    };
  }
  const result = await lowLevelClient.send(
    new BatchGetItemCommand({ RequestItems: { [tableName]: { Keys: keys.map(marshallItem), ...request } } }),
  );
  return {
    items: (result.Responses?.[tableName] ?? []).map((item) => unmarshall(item)),
    unprocessed: (result.UnprocessedKeys?.[tableName]?.Keys ?? []).map((key) => unmarshall(key)),
  };
}

/**
 * BatchGetItem over any number of keys: 100 per call, at most 8 calls at once. Unprocessed keys are
 * asked again at once while calls make progress (a response stops at 16 MB, so large items take
 * several), and with backoff when a call returns nothing (throttling); throws after six calls in a
 * row that returned nothing.
 */
export async function batchGetItems<T>(
  tableName: string,
  itemKeys: readonly Record<string, unknown>[],
  consistentRead = false,
  projection?: Projection,
  client: BatchClient = 'document',
): Promise<T[]> {
  const found: T[] = [];
  await forEachLimited(chunked(itemKeys, maxKeysPerGet), maxGetsInFlight, async (chunk) => {
    let pending = chunk;
    for (let fruitless = 0; pending.length > 0;) {
      if (fruitless === maxAttempts) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed`);
      if (fruitless > 0) await backoff(fruitless);
      const { items, unprocessed } = await sendBatchGet(
        client,
        tableName,
        pending,
        consistentRead,
        projection,
      );
      found.push(...(items as T[]));
      fruitless = unprocessed.length < pending.length ? 0 : fruitless + 1;
      pending = unprocessed;
    }
  });
  return found;
}

/** An item to put, tagged with whoever must be told if it could not be stored (SQS message ids). */
export interface TaggedPut {
  readonly item: Record<string, unknown> & { PK: string; SK: string };
  readonly tag: string | readonly string[];
}

const maxItemsPerWrite = 25;

/** Items DynamoDB still left unprocessed after every attempt (throttling that outlasted the backoff). */
class UnprocessedItemsError extends Error {
  override readonly name = 'UnprocessedItems';
  constructor() {
    super(`DynamoDB left the item unprocessed after ${maxAttempts} attempts (throttled); it was not stored.`);
  }
}

/**
 * Puts every item with BatchWriteItem: 25 per call, `concurrency` calls at once, unprocessed items
 * retried with exponential backoff. Items sharing a key are collapsed (the last wins) because
 * BatchWriteItem refuses duplicate keys in one call. A call refused for good (a `ValidationException`:
 * one item too large, say) is split into single puts, so only the offending item fails, not the 24
 * others. Returns, per tag of an item that could not be stored, the error that stopped it.
 */
export async function batchPutAll(
  tableName: string,
  puts: readonly TaggedPut[],
  concurrency = 4,
  client: BatchClient = 'document',
): Promise<Map<string, Error>> {
  const byKey = new Map<string, TaggedPut>();
  for (const put of puts) byKey.set(`${put.item.PK}\u0000${put.item.SK}`, put);
  const calls = chunked([...byKey.values()], maxItemsPerWrite);

  const failed = new Map<string, Error>();
  await forEachLimited(calls, concurrency, async (call) => {
    for (const { put, error } of await putWithRetries(client, tableName, call))
      for (const tag of typeof put.tag === 'string' ? [put.tag] : put.tag)
        if (!failed.has(tag)) failed.set(tag, error);
  });
  return failed;
}

/** `batchPutAll` for callers that retry the whole set: throws the first error if any put failed. */
export async function batchPutEvery(
  tableName: string,
  puts: readonly TaggedPut[],
  concurrency?: number,
): Promise<void> {
  const [first] = (await batchPutAll(tableName, puts, concurrency)).values();
  if (first) throw first;
}

/**
 * Deletes every key with BatchWriteItem: 25 per call, `concurrency` calls at once, unprocessed keys
 * retried with backoff; throws if some are still unprocessed after six attempts (deleting is
 * idempotent: the caller retries the whole set).
 */
export async function batchDeleteAll(
  tableName: string,
  itemKeys: readonly { PK: string; SK: string }[],
  concurrency = 4,
): Promise<void> {
  await forEachLimited(chunked(itemKeys, maxItemsPerWrite), concurrency, async (chunk) => {
    let pending = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === maxAttempts) throw new UnprocessedItemsError();
      if (attempt > 0) await backoff(attempt);
      const result = await documentClient.send(
        new BatchWriteCommand({
          RequestItems: { [tableName]: pending.map((key) => ({ DeleteRequest: { Key: key } })) },
        }),
      );
      pending = (result.UnprocessedItems?.[tableName] ?? []).map(
        (request) => request.DeleteRequest?.Key as { PK: string; SK: string },
      );
    }
  });
}

interface FailedPut {
  readonly put: TaggedPut;
  readonly error: Error;
}

/** One BatchWriteItem call of these items: the keys (`PK\u0000SK`) of those left unprocessed. */
async function sendBatchWrite(
  client: BatchClient,
  tableName: string,
  items: readonly Item[],
): Promise<Set<string>> {
  const keyOf = (item: Item | undefined): string => `${String(item?.PK)}\u0000${String(item?.SK)}`;
  if (client === 'document') {
    const result = await documentClient.send(
      new BatchWriteCommand({
        RequestItems: { [tableName]: items.map((Item) => ({ PutRequest: { Item } })) },
      }),
    );
    return new Set(
      (result.UnprocessedItems?.[tableName] ?? []).map((request) => keyOf(request.PutRequest?.Item)),
    );
  }
  const result = await lowLevelClient.send(
    new BatchWriteItemCommand({
      RequestItems: { [tableName]: items.map((item) => ({ PutRequest: { Item: marshallItem(item) } })) },
    }),
  );
  return new Set(
    (result.UnprocessedItems?.[tableName] ?? []).map(({ PutRequest }) =>
      keyOf({ PK: PutRequest?.Item?.PK?.S, SK: PutRequest?.Item?.SK?.S }),
    ),
  );
}

async function putWithRetries(
  client: BatchClient,
  tableName: string,
  puts: TaggedPut[],
): Promise<FailedPut[]> {
  let pending = puts;
  for (let attempt = 0; attempt < maxAttempts && pending.length > 0; attempt++) {
    if (attempt > 0) await backoff(attempt);
    let unprocessed: Set<string>;
    try {
      unprocessed = await sendBatchWrite(
        client,
        tableName,
        pending.map((put) => put.item),
      );
    } catch (error) {
      if (!isRetryable(error)) {
        // Retrying the same call cannot help; one put at a time finds the item(s) at fault.
        if (pending.length > 1) return isolateFailures(client, tableName, pending);
        return [{ put: pending[0]!, error: error as Error }];
      }
      // The SDK already retried throttling and transient faults: this call's items are not stored.
      if (attempt === maxAttempts - 1) return pending.map((put) => ({ put, error: error as Error }));
      continue;
    }
    pending =
      unprocessed.size === 0
        ? []
        : pending.filter((put) => unprocessed.has(`${put.item.PK}\u0000${put.item.SK}`));
  }
  // An error captures a stack trace: made only when some put was not stored (not on every call).
  if (pending.length === 0) return [];
  const error = new UnprocessedItemsError();
  return pending.map((put) => ({ put, error }));
}

async function isolateFailures(
  client: BatchClient,
  tableName: string,
  puts: readonly TaggedPut[],
): Promise<FailedPut[]> {
  const results = await Promise.all(puts.map((put) => putWithRetries(client, tableName, [put])));
  return results.flat();
}

function isRetryable(error: unknown): boolean {
  const name = (error as { name?: string }).name ?? '';
  return /Throttl|ProvisionedThroughputExceeded|RequestLimitExceeded|InternalServerError|ServiceUnavailable/.test(
    name,
  );
}
