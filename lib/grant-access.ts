import { Stack, Validations } from 'aws-cdk-lib';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { envNames } from '../functions/shared/config';
import { lakeEventsPrefix, lakeTableName } from '../functions/shared/lake/layout';
import { exportsQueue, ingestQueue, lakeQueue } from '../functions/shared/queue/definitions';
import type { FlockFunction } from './flock-function';
import type { IFlockTable } from './flock-table';
import type { LakeQueryResources } from './lake';
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
  readonly lakeQueue: IQueue;
  readonly lakeBucket: IBucket;
  readonly lakeQueries: LakeQueryResources;
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
  if (access.lakeQueue) {
    fn.addEnvironment(lakeQueue.envVar, resources.lakeQueue.queueUrl);
    grantQueue(resources.lakeQueue, fn, access.lakeQueue);
  }
  if (access.lakeBucket) {
    fn.addEnvironment(envNames.lakeBucket, resources.lakeBucket.bucketName);
    if (access.lakeBucket === 'read') grantLakeRead(resources.lakeBucket, fn);
    else grantLakeWrite(resources.lakeBucket, fn);
    if (access.lakeBucket === 'maintain') grantLakeMaintain(resources.lakeBucket, fn);
  }
  if (access.lakeQueries) {
    fn.addEnvironment(envNames.athenaWorkGroup, resources.lakeQueries.workGroupName);
    fn.addEnvironment(envNames.lakeDatabase, resources.lakeQueries.databaseName);
    grantLakeQueries(resources.lakeQueries, resources.lakeBucket, fn);
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

/**
 * Puts lake files and checks whether one exists (HeadObject needs s3:GetObject, and s3:ListBucket on
 * the prefix so that a missing file answers 404, not 403), under `events/` only.
 */
function grantLakeWrite(bucket: IBucket, fn: FlockFunction): void {
  grantLakeObjects(bucket, fn, ['s3:PutObject', 's3:GetObject']);
}

/** Lists and gets lake files, under `events/` only: nothing else of the bucket, and no write. */
function grantLakeRead(bucket: IBucket, fn: FlockFunction): void {
  grantLakeObjects(bucket, fn, ['s3:GetObject']);
}

function grantLakeObjects(bucket: IBucket, fn: FlockFunction, actions: string[]): void {
  Grant.addToPrincipal({
    grantee: fn,
    actions,
    resourceArns: [bucket.arnForObjects(`${lakeEventsPrefix}*`)],
  });
  Grant.addToPrincipal({
    grantee: fn,
    actions: ['s3:ListBucket'],
    resourceArns: [bucket.bucketArn],
    conditions: { StringLike: { 's3:prefix': [`${lakeEventsPrefix}*`] } },
  });
  Validations.of(fn.role).acknowledge({
    id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagArnName(fn, bucket)}/${lakeEventsPrefix}*]`,
    reason: `Lake files are named by project, date and writer: the grant is the lake's ${lakeEventsPrefix} prefix, nothing else of the bucket`,
  });
}

/**
 * How cdk-nag names the bucket's ARN in the function's findings: across stacks, the name of the export
 * the reference becomes (`exportValue` creates the very export the automatic reference uses); within
 * one stack, `<LogicalId.Arn>`.
 */
function nagArnName(fn: FlockFunction, bucket: IBucket): string {
  const owner = Stack.of(bucket);
  const arn = owner === Stack.of(fn) ? bucket.bucketArn : owner.exportValue(bucket.bucketArn);
  const resolved = Stack.of(fn).resolve(arn) as Record<string, unknown>;
  if (typeof resolved['Fn::ImportValue'] === 'string') return resolved['Fn::ImportValue'];
  const [id, attribute] = resolved['Fn::GetAtt'] as [string, string];
  return `<${id}.${attribute}>`;
}

/** Compaction and deleted projects: copy (a GetObject and a PutObject) and delete lake files too. */
function grantLakeMaintain(bucket: IBucket, fn: FlockFunction): void {
  Grant.addToPrincipal({
    grantee: fn,
    actions: ['s3:DeleteObject'],
    resourceArns: [bucket.arnForObjects(`${lakeEventsPrefix}*`)],
  });
}

/**
 * Athena runs a query with its caller's permissions: the executions of the lake's workgroup only, the
 * Glue catalog, database and lake table (partition projection: no partitions to read), the lake's
 * files (granted by `read`) and the bucket's location, and the workgroup's results bucket, where
 * Athena writes each result under the execution's id and the function reads it back.
 */
function grantLakeQueries(queries: LakeQueryResources, lakeBucket: IBucket, fn: FlockFunction): void {
  const stack = Stack.of(fn);
  Grant.addToPrincipal({
    grantee: fn,
    actions: [
      'athena:StartQueryExecution',
      'athena:GetQueryExecution',
      'athena:GetQueryResults',
      'athena:StopQueryExecution',
    ],
    resourceArns: [
      stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: queries.workGroupName }),
    ],
  });
  Grant.addToPrincipal({
    grantee: fn,
    actions: ['glue:GetDatabase', 'glue:GetTable'],
    resourceArns: [
      stack.formatArn({ service: 'glue', resource: 'catalog' }),
      stack.formatArn({ service: 'glue', resource: 'database', resourceName: queries.databaseName }),
      stack.formatArn({
        service: 'glue',
        resource: 'table',
        resourceName: `${queries.databaseName}/${lakeTableName}`,
      }),
    ],
  });
  Grant.addToPrincipal({
    grantee: fn,
    actions: ['s3:GetBucketLocation'],
    resourceArns: [lakeBucket.bucketArn, queries.resultsBucket.bucketArn],
  });
  Grant.addToPrincipal({
    grantee: fn,
    actions: ['s3:ListBucket', 's3:ListBucketMultipartUploads'],
    resourceArns: [queries.resultsBucket.bucketArn],
  });
  Grant.addToPrincipal({
    grantee: fn,
    actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListMultipartUploadParts'],
    resourceArns: [queries.resultsBucket.arnForObjects('*')],
  });
  Validations.of(fn.role).acknowledge({
    id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagArnName(fn, queries.resultsBucket)}/*]`,
    reason:
      "Athena names each result object by its execution id: the grant is the workgroup's own results bucket, which holds nothing else",
  });
}
