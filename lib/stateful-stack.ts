import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { eventsTable, singleTable } from '../functions/shared/db/schema';
import { FlockTable } from './flock-table';
import {
  deadLetterQueue,
  exportsDeadLetterQueue,
  exportsQueue,
  ingestQueue,
} from '../functions/shared/queue/definitions';
import { QueueWithDeadLetter } from './queues';

/**
 * Everything that holds data: the two tables, the ingest queue and the exports queue with their DLQs. It changes rarely; the
 * stateless stack can be destroyed and redeployed without touching it.
 */
export class FlockStatefulStack extends Stack {
  public readonly eventsTable: FlockTable;
  public readonly singleTable: FlockTable;
  public readonly ingestQueue: Queue;
  public readonly deadLetterQueue: Queue;
  public readonly exportsQueue: Queue;
  public readonly exportsDeadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, {
      description:
        'Flock stateful resources: DynamoDB tables, ingest and exports queues and their dead-letter queues',
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

    // The ops CLI reads these outputs by their ids: keep them stable.
    new CfnOutput(this, 'EventsTableName', { value: this.eventsTable.tableName });
    new CfnOutput(this, 'SingleTableName', { value: this.singleTable.tableName });
    new CfnOutput(this, 'IngestQueueUrl', { value: this.ingestQueue.queueUrl });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'ExportsQueueUrl', { value: this.exportsQueue.queueUrl });
    new CfnOutput(this, 'ExportsDeadLetterQueueUrl', { value: this.exportsDeadLetterQueue.queueUrl });
  }
}
