import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { envNames } from '../functions/shared/config';
import { exportsQueue, ingestQueue } from '../functions/shared/queue/definitions';
import type { FlockFunction } from './flock-function';
import type { IFlockTable } from './flock-table';
import type { FunctionAccess } from './function-access';
import { grantQueue, grantSecretsKey } from './queue-and-key-grants';
import type { TableGrant } from './table-access';

// Applies the access declarations of lib/function-access.ts with CDK grants. Kept apart from them: the
// local server's IAM guard (bin/local/iam-guard.ts) loads that file into every function container, and
// it must load no CDK.

/** The stateful resources a function can be bound to. */
export interface FlockResources {
  readonly eventsTable: IFlockTable;
  readonly singleTable: IFlockTable;
  readonly ingestQueue: IQueue;
  readonly exportsQueue: IQueue;
  readonly pluginSecretsKey: IKey;
}

/**
 * Applies `access` to `fn`: each resource's environment variable (its name, URL or ARN) and its grant,
 * together, so they cannot drift.
 */
export function grantAccess(fn: FlockFunction, access: FunctionAccess, resources: FlockResources): void {
  if (access.eventsTable) grantTable(fn, resources.eventsTable, access.eventsTable);
  if (access.singleTable) grantTable(fn, resources.singleTable, access.singleTable);
  if (access.ingestQueue) {
    fn.addEnvironment(ingestQueue.envVar, resources.ingestQueue.queueUrl);
    grantQueue(resources.ingestQueue, fn, access.ingestQueue);
  }
  if (access.exportsQueue) {
    fn.addEnvironment(exportsQueue.envVar, resources.exportsQueue.queueUrl);
    grantQueue(resources.exportsQueue, fn, access.exportsQueue);
  }
  if (access.pluginSecretsKey) {
    fn.addEnvironment(envNames.secretsKeyArn, resources.pluginSecretsKey.keyArn);
    grantSecretsKey(resources.pluginSecretsKey, fn, access.pluginSecretsKey);
  }
  for (const [name, value] of Object.entries(access.environment ?? {})) fn.addEnvironment(name, value);
}

function grantTable(fn: FlockFunction, table: IFlockTable, grant: TableGrant): void {
  fn.addEnvironment(table.definition.envVar, table.tableName);
  table.grantScoped(fn, grant);
}
