import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { deadLetterQueue, ingestQueue, messageLimits } from '../functions/shared/queue/definitions';

/**
 * The ingest queue and its dead-letter queue, from `functions/shared/queue/definitions.ts` (the local
 * poller plays the same settings). Both are encrypted with SQS-managed keys and refuse plain HTTP.
 * Physical names are left to CloudFormation so two deployments can share an account and region; the
 * stateful stack outputs the URLs.
 */
export class IngestQueues extends Construct {
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(deadLetterQueue.retentionDays),
      // Pinned (SQS's default has changed before): what capture packs must always fit, here too.
      maxMessageSizeBytes: messageLimits.maxMessageBytes,
      // Messages waiting here are accepted events not yet stored: keep them if the stack goes.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(ingestQueue.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(ingestQueue.retentionDays),
      maxMessageSizeBytes: messageLimits.maxMessageBytes,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: ingestQueue.maxReceiveCount },
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
