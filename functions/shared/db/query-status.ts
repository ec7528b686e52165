import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';
import { isConditionalCheckFailed } from './operations';

/**
 * The statuses of async queries (PostHog's `QueryStatus`, which it keeps in Redis): one item per
 * (project, query id), so a query id is only ever found in its own project. The item holds what the
 * run needs (the query and the project's timezone, so the queue message carries ids only) and a run
 * token: a query sent again under the same id replaces the item, and a run whose token is no longer
 * the item's (replaced, or cancelled: the item deleted) can neither start nor write its results.
 * Items expire by DynamoDB's TTL (`expires`); reads check the time too, as the TTL removes items only
 * eventually. Keys live here, as the query cache's do: nothing else reads them.
 */

/** An async query's status as stored; times in epoch milliseconds. */
export interface QueryRunRecord {
  readonly projectId: number;
  readonly queryId: string;
  /** The request's `query` node, as JSON. */
  readonly query: string;
  readonly timezone: string;
  readonly token: string;
  readonly startMs: number;
  readonly pickupMs?: number;
  readonly endMs?: number;
  readonly complete: boolean;
  readonly error: boolean;
  /** Set only for an error the client may read (a 4xx of the query itself, a timeout). */
  readonly errorMessage: string | null;
  /** The full query response, as JSON, once complete without error. */
  readonly results?: string;
  /** Epoch seconds after which the status is gone. */
  readonly expires: number;
}

const itemKey = (projectId: number, queryId: string) => ({
  PK: `QSTATUS#${projectId}#${queryId}`,
  SK: 'QSTATUS',
});

/** Stores a new pending run, replacing any status of the same id (whose run then writes nothing). */
export async function putPendingQueryRun(
  tableName: string,
  run: Pick<QueryRunRecord, 'projectId' | 'queryId' | 'query' | 'timezone' | 'token' | 'startMs' | 'expires'>,
): Promise<void> {
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...itemKey(run.projectId, run.queryId),
        project_id: run.projectId,
        query_id: run.queryId,
        query: run.query,
        timezone: run.timezone,
        token: run.token,
        start_ms: run.startMs,
        complete: false,
        error: false,
        expires: run.expires,
      },
    }),
  );
}

/** The item as a record (its attributes are written by this module only). */
function recordOf(item: Record<string, unknown>): QueryRunRecord {
  return {
    projectId: item.project_id as number,
    queryId: item.query_id as string,
    query: item.query as string,
    timezone: item.timezone as string,
    token: item.token as string,
    startMs: item.start_ms as number,
    ...(typeof item.pickup_ms === 'number' ? { pickupMs: item.pickup_ms } : {}),
    ...(typeof item.end_ms === 'number' ? { endMs: item.end_ms } : {}),
    complete: item.complete === true,
    error: item.error === true,
    errorMessage: typeof item.error_message === 'string' ? item.error_message : null,
    ...(typeof item.results === 'string' ? { results: item.results } : {}),
    expires: item.expires as number,
  };
}

/** The status of `queryId` in the project, unless there is none or it has expired at `nowMs`. */
export async function getQueryRun(
  tableName: string,
  projectId: number,
  queryId: string,
  nowMs: number,
): Promise<QueryRunRecord | undefined> {
  const { Item: item } = await documentClient.send(
    new GetCommand({ TableName: tableName, Key: itemKey(projectId, queryId) }),
  );
  if (!item || typeof item.expires !== 'number' || item.expires * 1000 <= nowMs) return undefined;
  return recordOf(item);
}

/**
 * Marks the run picked up at `nowMs` and answers its status, only if it is still the pending run of
 * `token` that no one picked up and that was sent at `oldestStartMs` or later; undefined otherwise
 * (cancelled, replaced, a redelivery, or too late), and then it must not run.
 */
export async function claimQueryRun(
  tableName: string,
  run: { readonly projectId: number; readonly queryId: string; readonly token: string },
  nowMs: number,
  oldestStartMs: number,
): Promise<QueryRunRecord | undefined> {
  try {
    const { Attributes: item } = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: itemKey(run.projectId, run.queryId),
        UpdateExpression: 'SET pickup_ms = :now',
        ConditionExpression: '#token = :token AND attribute_not_exists(pickup_ms) AND start_ms >= :oldest',
        ExpressionAttributeNames: { '#token': 'token' },
        ExpressionAttributeValues: { ':now': nowMs, ':token': run.token, ':oldest': oldestStartMs },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return item ? recordOf(item) : undefined;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
}

/** How a run ended: its response (JSON), or an error with the message the client may read. */
export type QueryRunOutcome =
  { readonly results: string } | { readonly error: true; readonly errorMessage: string | null };

/**
 * Completes the run of `token` at `nowMs`, kept `ttlSeconds` from then; false (nothing written) when
 * the status is no longer that run's: a cancelled or replaced query never gets results.
 */
export async function finishQueryRun(
  tableName: string,
  run: { readonly projectId: number; readonly queryId: string; readonly token: string },
  outcome: QueryRunOutcome,
  nowMs: number,
  ttlSeconds: number,
): Promise<boolean> {
  const failed = 'error' in outcome;
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: itemKey(run.projectId, run.queryId),
        UpdateExpression:
          'SET complete = :true, #error = :error, error_message = :message, results = :results, ' +
          'end_ms = :now, expires = :expires',
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#token': 'token', '#error': 'error' },
        ExpressionAttributeValues: {
          ':true': true,
          ':error': failed,
          ':message': failed ? outcome.errorMessage : null,
          ':results': failed ? null : outcome.results,
          ':now': nowMs,
          ':expires': Math.floor(nowMs / 1000) + ttlSeconds,
          ':token': run.token,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

/** Deletes the status of `queryId` (its run then writes nothing); false when there is none at `nowMs`. */
export async function deleteQueryRun(
  tableName: string,
  projectId: number,
  queryId: string,
  nowMs: number,
): Promise<boolean> {
  try {
    await documentClient.send(
      new DeleteCommand({
        TableName: tableName,
        Key: itemKey(projectId, queryId),
        ConditionExpression: 'expires > :now',
        ExpressionAttributeValues: { ':now': Math.floor(nowMs / 1000) },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}
