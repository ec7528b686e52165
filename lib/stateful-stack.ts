import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { eventsTable, singleTable } from '../functions/shared/db/schema';
import { FlockTable } from './flock-table';
import { IngestQueues } from './ingest-queues';

/**
 * Everything that holds data: the two tables, the ingest queue and its DLQ. It changes rarely; the
 * stateless stack can be destroyed and redeployed without touching it.
 */
export class FlockStatefulStack extends Stack {
  public readonly eventsTable: FlockTable;
  public readonly singleTable: FlockTable;
  public readonly ingestQueue: Queue;
  public readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, {
      description: 'Flock stateful resources: DynamoDB tables, ingest queue and dead-letter queue',
      ...props,
    });
    // Construct ids fix the logical ids of data-holding resources: never change them (a changed id
    // replaces the resource; a retained one is orphaned with its data). test/cdk pins them.
    this.eventsTable = new FlockTable(this, 'FlockEvents', eventsTable);
    this.singleTable = new FlockTable(this, 'FlockMain', singleTable);
    const queues = new IngestQueues(this, 'Ingest');
    this.ingestQueue = queues.queue;
    this.deadLetterQueue = queues.deadLetterQueue;

    // The ops CLI reads these outputs by their ids: keep them stable.
    new CfnOutput(this, 'EventsTableName', { value: this.eventsTable.tableName });
    new CfnOutput(this, 'SingleTableName', { value: this.singleTable.tableName });
    new CfnOutput(this, 'IngestQueueUrl', { value: this.ingestQueue.queueUrl });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.deadLetterQueue.queueUrl });
  }
}
