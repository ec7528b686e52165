import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { documentClient } from './client';
import { keys } from './keys';
import { conditionally, mainIndex } from './operations';

/**
 * Job requests of plugin configs (`POST /plugin_configs/:id/job/`): kept as PostHog enqueues them
 * (`{type, payload: {...payload, $operation}, pluginConfigId, pluginConfigTeam}`), one item each under
 * the config, and on the pending-jobs index (GSI1 `PLUGINJOBS#PENDING`, oldest first) until the
 * exports function finishes them (functions/exports/historical.ts): it takes a job with a lease, saves
 * its progress (a cursor, and the object it is uploading) after each step, and takes it off the
 * index when it is done or failed.
 */

export interface PluginJobRequest {
  readonly type: string;
  readonly payload: Record<string, unknown>;
  readonly pluginConfigId: number;
  readonly pluginConfigTeam: number;
}

export type PluginJobStatus = 'pending' | 'done' | 'failed' | 'stopped';

/** Where a running export stands: what it exported so far, and the page it is uploading. */
export interface PluginJobProgress {
  /** The last event exported (oldest first), to resume after. */
  readonly cursor?: { readonly timestamp: string; readonly uuid: string };
  /** The upload in progress: retried under the same keys, so a retried step overwrites, never adds. */
  readonly upload?: { readonly time: string; readonly seed: string };
  readonly exported: number;
  /** Steps that failed in a row. */
  readonly failures: number;
}

export interface PluginJob {
  readonly key: { readonly PK: string; readonly SK: string };
  readonly id: string;
  readonly status: PluginJobStatus;
  readonly createdAt: string;
  readonly request: PluginJobRequest;
  readonly progress: PluginJobProgress;
  readonly leaseUntil?: string;
}

export async function recordPluginJob(tableName: string, job: PluginJobRequest): Promise<string> {
  const id = randomUUID();
  const createdAt = new Date().toISOString();
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: {
        ...keys.pluginJob(job.pluginConfigTeam, job.pluginConfigId, createdAt, id),
        ...keys.pendingPluginJob(createdAt, id),
        id,
        status: 'pending',
        created_at: createdAt,
        // Client JSON: kept as text, as DynamoDB numbers refuse some of it.
        job_json: JSON.stringify(job),
      },
    }),
  );
  return id;
}

function fromItem(item: Record<string, unknown>): PluginJob {
  return {
    key: { PK: String(item.PK), SK: String(item.SK) },
    id: String(item.id),
    status: item.status as PluginJobStatus,
    createdAt: String(item.created_at),
    request: JSON.parse(String(item.job_json)) as PluginJobRequest,
    progress:
      typeof item.progress_json === 'string'
        ? (JSON.parse(item.progress_json) as PluginJobProgress)
        : { exported: 0, failures: 0 },
    ...(typeof item.lease_until === 'string' ? { leaseUntil: item.lease_until } : {}),
  };
}

/** Finished jobs are kept this long (the table's TTL), so a config's job history stays small. */
const finishedJobRetentionDays = 30;
/** A config's most recent job requests a new request is checked against. */
const recentJobsExamined = 100;

/** How many of the config's most recent job requests have not finished yet. */
export async function countPendingPluginJobs(
  tableName: string,
  projectId: number,
  configId: number,
): Promise<number> {
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.pluginJobsPartition(projectId, configId) },
      ScanIndexForward: false,
      Limit: recentJobsExamined,
      ProjectionExpression: '#status',
      ExpressionAttributeNames: { '#status': 'status' },
    }),
  );
  return Items.filter((item) => item.status === 'pending').length;
}

/** The oldest `limit` jobs not yet finished (one Query of the pending-jobs index). */
export async function pendingPluginJobs(tableName: string, limit: number): Promise<PluginJob[]> {
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: mainIndex,
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.pendingPluginJobsPartition },
      Limit: limit,
    }),
  );
  return Items.map(fromItem);
}

/** Takes the job until `until` unless another run holds it; false if it is taken or finished. */
export function leasePluginJob(tableName: string, job: PluginJob, now: Date, until: Date): Promise<boolean> {
  return conditionally(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: job.key,
        UpdateExpression: 'SET lease_until = :until',
        ConditionExpression:
          '#status = :pending AND (attribute_not_exists(lease_until) OR lease_until < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':until': until.toISOString(),
          ':now': now.toISOString(),
          ':pending': 'pending',
        },
      }),
    ),
  );
}

/** Saves where the job stands. */
export async function savePluginJobProgress(
  tableName: string,
  job: PluginJob,
  progress: PluginJobProgress,
): Promise<void> {
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: job.key,
      UpdateExpression: 'SET progress_json = :progress',
      ExpressionAttributeValues: { ':progress': JSON.stringify(progress) },
    }),
  );
}

/** Lets the next run take the job (it stays pending). */
export async function releasePluginJob(tableName: string, job: PluginJob): Promise<void> {
  await documentClient.send(
    new UpdateCommand({ TableName: tableName, Key: job.key, UpdateExpression: 'REMOVE lease_until' }),
  );
}

/** Ends the job: its status, and off the pending index. */
export async function finishPluginJob(
  tableName: string,
  job: PluginJob,
  status: Exclude<PluginJobStatus, 'pending'>,
  now: Date,
): Promise<void> {
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: job.key,
      UpdateExpression:
        'SET #status = :status, finished_at = :now, expires = :expires REMOVE GSI1PK, GSI1SK, lease_until',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': status,
        ':now': now.toISOString(),
        ':expires': Math.floor(now.getTime() / 1000) + finishedJobRetentionDays * 86_400,
      },
    }),
  );
}
