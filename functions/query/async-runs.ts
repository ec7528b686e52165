import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { putCachedQuery } from '../shared/db/query-cache';
import type { QueryRunOutcome, QueryRunRecord } from '../shared/db/query-status';
import { claimQueryRun, finishQueryRun, putPendingQueryRun } from '../shared/db/query-status';
import { HttpError, ValidationError } from '../shared/http/errors';
import { logger } from '../shared/logger';
import { sqsClient } from '../shared/queue/client';
import type { CachedQuery } from '../shared/db/query-cache';
import { computeQuery, prepareQuery, queryContextOf } from './compute';
import type { QueryConfig } from './config';
import type { QueryNode } from './request';
import { queryNodeSchema } from './request';
import { queryResponse, sortedKeys } from './response';
import { asyncQuery } from './settings';

/**
 * Async queries (PostHog's `enqueue_process_query_task`, posthog/clickhouse/client/execute_async.py):
 * a request stores the query's status as pending and sends a run to the runs queue; the query
 * function, invoked by the queue's event source, claims the run, computes the query as a
 * `force_blocking` request would (and caches it), and completes the status with the full response,
 * unless the query was cancelled or sent again meanwhile. `GET …/query/:id/` reads the status.
 */

/** What a run's message carries: ids only; the query waits in the status item. */
const runMessageSchema = z.object({
  project_id: z.number().int().positive(),
  query_id: z.string().min(1).max(200),
  token: z.string().min(1).max(100),
});

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** The message of a run that will never write its status: it is read as errored. */
const stalledMessage =
  'The query did not finish: its run timed out or failed. Run it again, or narrow its date range.';

/** Whether the run of a pending status can no longer end: never picked up in time, or past its timeout. */
function hasStalled(record: QueryRunRecord, nowMs: number): boolean {
  if (record.complete) return false;
  return record.pickupMs === undefined
    ? nowMs > record.startMs + asyncQuery.pickupWindowMs
    : nowMs > record.pickupMs + asyncQuery.runDeadlineMs;
}

/** PostHog's `QueryStatus` of a stored run at `nowMs`, keys in its (alphabetical) order. */
export function queryStatusOf(record: QueryRunRecord, nowMs: number): Record<string, unknown> {
  const stalled = hasStalled(record, nowMs);
  return sortedKeys({
    id: record.queryId,
    team_id: record.projectId,
    query_async: true,
    complete: record.complete || stalled,
    error: record.error || stalled,
    error_message: stalled ? stalledMessage : record.errorMessage,
    results: record.results === undefined ? null : (JSON.parse(record.results) as unknown),
    start_time: iso(record.startMs),
    pickup_time: iso(record.pickupMs),
    end_time: iso(record.endMs),
    expiration_time: record.complete ? iso(record.expires * 1000) : null,
    task_id: null,
    insight_id: null,
    dashboard_id: null,
    query_progress: null,
    labels: null,
  });
}

/**
 * Stores `node` as the pending query `queryId` of the project (replacing a status of the same id,
 * whose run then writes nothing) and sends its run; answers its `QueryStatus`.
 */
export async function enqueueQueryRun(
  settings: QueryConfig,
  project: { readonly id: number; readonly timezone: string },
  queryId: string,
  node: QueryNode,
  now: Date,
): Promise<Record<string, unknown>> {
  const query = JSON.stringify(node);
  if (Buffer.byteLength(query) > asyncQuery.maxQueryBytes)
    throw new ValidationError(
      'invalid_input',
      `An async query may be at most ${asyncQuery.maxQueryBytes} bytes of JSON; run it with refresh "blocking".`,
      'query',
    );
  const record: QueryRunRecord = {
    projectId: project.id,
    queryId,
    query,
    timezone: project.timezone,
    token: randomUUID(),
    startMs: now.getTime(),
    complete: false,
    error: false,
    errorMessage: null,
    expires: Math.floor(now.getTime() / 1000) + asyncQuery.statusTtlSeconds,
  };
  await putPendingQueryRun(settings.singleTable, record);
  await sqsClient.send(
    new SendMessageCommand({
      QueueUrl: settings.queryRunsQueueUrl,
      MessageBody: JSON.stringify({ project_id: project.id, query_id: queryId, token: record.token }),
    }),
  );
  return queryStatusOf(record, now.getTime());
}

/** Runs each record of the runs queue's batch (one, by its event source's batch size). */
export async function runQueryRuns(event: SQSEvent, settings: QueryConfig): Promise<void> {
  for (const record of event.Records) {
    const parsed = runMessageSchema.safeParse(JSON.parse(record.body));
    if (!parsed.success) {
      logger.error('Dropped a query run message that is not one', { messageId: record.messageId });
      continue;
    }
    const { project_id: projectId, query_id: queryId, token } = parsed.data;
    await runQuery(settings, { projectId, queryId, token });
  }
}

/** The run's outcome: the full response, or its error (its message only when the client may read it). */
async function outcomeOf(
  settings: QueryConfig,
  record: QueryRunRecord,
  now: Date,
): Promise<{ outcome: QueryRunOutcome; cache?: { key: string; entry: CachedQuery } }> {
  try {
    const context = queryContextOf(settings, { id: record.projectId, timezone: record.timezone }, now);
    const node = queryNodeSchema.parse(JSON.parse(record.query));
    const prepared = await prepareQuery(node, context, settings);
    const entry = await computeQuery(prepared, context, settings);
    const meta = { cacheKey: prepared.cacheKey, timezone: record.timezone, isCached: false };
    const results = JSON.stringify(queryResponse(entry.result, { ...meta, ...entry }));
    if (Buffer.byteLength(results) > asyncQuery.maxResultsBytes)
      return {
        outcome: {
          error: true,
          errorMessage: `The result is larger than an async query keeps (${asyncQuery.maxResultsBytes} bytes of JSON): lower its limit or run it with refresh "blocking".`,
        },
      };
    return { outcome: { results }, cache: { key: prepared.cacheKey, entry } };
  } catch (error) {
    if (error instanceof HttpError && error.expose)
      return { outcome: { error: true, errorMessage: error.detail } };
    logger.error('Async query run failed', { error, queryId: record.queryId });
    return { outcome: { error: true, errorMessage: null } };
  }
}

/**
 * Claims the run (nothing happens when it is no longer pending), computes it and completes its
 * status; the result is cached only once the status took it, so a cancelled query writes nothing.
 */
async function runQuery(
  settings: QueryConfig,
  run: { readonly projectId: number; readonly queryId: string; readonly token: string },
): Promise<void> {
  const now = new Date();
  const record = await claimQueryRun(
    settings.singleTable,
    run,
    now.getTime(),
    now.getTime() - asyncQuery.pickupWindowMs,
  );
  if (!record) return;
  const { outcome, cache } = await outcomeOf(settings, record, now);
  const finished = await finishQueryRun(
    settings.singleTable,
    run,
    outcome,
    Date.now(),
    asyncQuery.statusTtlSeconds,
  );
  if (finished && cache) await putCachedQuery(settings.singleTable, cache.key, cache.entry);
}
