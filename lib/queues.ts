import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { messageLimits } from '../functions/shared/queue/definitions';

/** What a queue with a dead-letter queue takes from `functions/shared/queue/definitions.ts`. */
export interface QueueWithDeadLetterProps {
  readonly queue: {
    readonly maxReceiveCount: number;
    readonly visibilityTimeoutSeconds: number;
    readonly retentionDays: number;
  };
  readonly deadLetterQueue: { readonly retentionDays: number };
  /**
   * What becomes of both queues when their stack goes: kept by default (they hold accepted events);
   * a queue of work worth nothing later (async query runs) is destroyed. @default RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * A queue and its dead-letter queue (the ingest queue, the exports queue), from the definitions the
 * local poller plays too. Both are encrypted with SQS-managed keys and refuse plain HTTP. Physical
 * names are left to CloudFormation so two deployments can share an account and region; the stateful
 * stack outputs the URLs.
 */
export class QueueWithDeadLetter extends Construct {
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: QueueWithDeadLetterProps) {
    super(scope, id);
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(props.deadLetterQueue.retentionDays),
      // Pinned (SQS's default has changed before): what the senders pack must always fit, here too.
      maxMessageSizeBytes: messageLimits.maxMessageBytes,
      // Messages waiting here are accepted events not yet handled: keep them if the stack goes.
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(props.queue.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(props.queue.retentionDays),
      maxMessageSizeBytes: messageLimits.maxMessageBytes,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.queue.maxReceiveCount },
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
  }
}
