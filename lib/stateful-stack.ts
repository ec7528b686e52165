import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { eventsTable, singleTable } from '../functions/shared/db/schema';
import { FlockTable } from './flock-table';
import {
  deadLetterQueue,
  exportsDeadLetterQueue,
  exportsQueue,
  ingestQueue,
  lakeDeadLetterQueue,
  lakeQueue,
} from '../functions/shared/queue/definitions';
import { FlockLake } from './lake';
import { QueueWithDeadLetter } from './queues';

/**
 * Everything that holds data: the two tables, the ingest queue and the exports queue with their DLQs,
 * and the key that seals plugin config secrets. It changes rarely; the stateless stack can be
 * destroyed and redeployed without touching it.
 */
export class FlockStatefulStack extends Stack {
  public readonly eventsTable: FlockTable;
  public readonly singleTable: FlockTable;
  public readonly ingestQueue: Queue;
  public readonly deadLetterQueue: Queue;
  public readonly exportsQueue: Queue;
  public readonly exportsDeadLetterQueue: Queue;
  /** Stored events for the lake function (docs/lake.md), and its DLQ. */
  public readonly lakeQueue: Queue;
  public readonly lakeDeadLetterQueue: Queue;
  /** The lake bucket, its Glue table and Athena workgroup. */
  public readonly lake: FlockLake;
  /** Seals the secret settings of plugin configs (functions/shared/secrets): without it they are lost. */
  public readonly pluginSecretsKey: Key;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, {
      description:
        'Flock stateful resources: DynamoDB tables, ingest, exports and lake queues and their dead-letter queues, plugin secrets key, the events lake',
      ...props,
    });
    // Construct ids fix the logical ids of data-holding resources: never change them (a changed id
    // replaces the resource; a retained one is orphaned with its data). test/cdk pins them.
    this.eventsTable = new FlockTable(this, 'FlockEvents', eventsTable);
    this.singleTable = new FlockTable(this, 'FlockMain', singleTable);
    const queues = new QueueWithDeadLetter(this, 'Ingest', { queue: ingestQueue, deadLetterQueue });
    this.ingestQueue = queues.queue;
    this.deadLetterQueue = queues.deadLetterQueue;
    const exports = new QueueWithDeadLetter(this, 'Exports', {
      queue: exportsQueue,
      deadLetterQueue: exportsDeadLetterQueue,
    });
    this.exportsQueue = exports.queue;
    this.exportsDeadLetterQueue = exports.deadLetterQueue;
    const lake = new QueueWithDeadLetter(this, 'Lake', {
      queue: lakeQueue,
      deadLetterQueue: lakeDeadLetterQueue,
    });
    this.lakeQueue = lake.queue;
    this.lakeDeadLetterQueue = lake.deadLetterQueue;
    this.lake = new FlockLake(this, 'EventsLake');
    // A customer-managed key, so that IAM decides per function who may encrypt (the plugin_configs API)
    // and who may decrypt (the exports function); its key policy is the account's default.
    this.pluginSecretsKey = new Key(this, 'PluginSecretsKey', {
      description: 'Flock: encrypts the secret settings of plugin configs',
      enableKeyRotation: true,
      // Deleting the key would make every stored secret unreadable.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // The ops CLI reads these outputs by their ids: keep them stable.
    new CfnOutput(this, 'EventsTableName', { value: this.eventsTable.tableName });
    new CfnOutput(this, 'SingleTableName', { value: this.singleTable.tableName });
    new CfnOutput(this, 'IngestQueueUrl', { value: this.ingestQueue.queueUrl });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'ExportsQueueUrl', { value: this.exportsQueue.queueUrl });
    new CfnOutput(this, 'ExportsDeadLetterQueueUrl', { value: this.exportsDeadLetterQueue.queueUrl });
    new CfnOutput(this, 'LakeQueueUrl', { value: this.lakeQueue.queueUrl });
    new CfnOutput(this, 'LakeDeadLetterQueueUrl', { value: this.lakeDeadLetterQueue.queueUrl });
    new CfnOutput(this, 'LakeBucketName', { value: this.lake.bucket.bucketName });
    new CfnOutput(this, 'LakeWorkGroup', { value: this.lake.workGroup.ref });
    // The plugin config upgrade (`flock migrate-plugin-configs`) seals existing secrets with it.
    new CfnOutput(this, 'PluginSecretsKeyArn', { value: this.pluginSecretsKey.keyArn });
  }
}
