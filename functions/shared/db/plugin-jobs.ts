import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { documentClient } from './client';
import { keys } from './keys';

/**
 * Job requests of plugin configs (`POST /plugin_configs/:id/job/`): kept as PostHog enqueues them
 * (`{type, payload: {...payload, $operation}, pluginConfigId, pluginConfigTeam}`), one item each under
 * the config, and on the pending-jobs index (GSI1 `PLUGINJOBS#PENDING`, oldest first) for the function
 * that runs them to take. Nothing runs them yet (docs/plugins.md).
 */

export interface PluginJobRequest {
  readonly type: string;
  readonly payload: Record<string, unknown>;
  readonly pluginConfigId: number;
  readonly pluginConfigTeam: number;
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
