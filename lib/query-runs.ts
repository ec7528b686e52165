import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  queryRunsDeadLetterQueue,
  queryRunsEventSource,
  queryRunsQueue,
} from '../functions/shared/queue/definitions';
import type { FlockFunction } from './flock-function';
import { grantQueue } from './queue-and-key-grants';
import { QueueWithDeadLetter } from './queues';

export interface QueryRunsProps {
  /** The query function: it sends the runs and its event source runs them. */
  readonly queryFunction: FlockFunction;
}

/**
 * Async queries' runs (docs/query-api.md "Async queries"): a queue the query function sends one
 * message per async query to, and the same function's event source on it (one run per invocation,
 * `queryRunsEventSource.maxConcurrency` at once). A queue rather than the function invoking itself
 * (`InvocationType: Event`): SQS is already the stack's (and the local server's) way to hand work to a
 * function, with its SDK in every bundle; the event source's maximum concurrency bounds what async
 * queries may take; and a self-invoking function needs a grant on its own ARN, which its role cannot
 * name without a dependency cycle. The function may only send to it (consuming is the event source's
 * grant); nothing in it outlives a day or the stack.
 */
export class QueryRuns extends Construct {
  public readonly queue: Queue;
  public readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: QueryRunsProps) {
    super(scope, id);
    const queues = new QueueWithDeadLetter(this, 'Queues', {
      queue: queryRunsQueue,
      deadLetterQueue: queryRunsDeadLetterQueue,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.queue = queues.queue;
    this.deadLetterQueue = queues.deadLetterQueue;
    const fn = props.queryFunction;
    fn.addEnvironment(queryRunsQueue.envVar, this.queue.queueUrl);
    grantQueue(this.queue, fn, 'send');
    fn.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: queryRunsEventSource.batchSize,
        maxBatchingWindow: Duration.seconds(queryRunsEventSource.maxBatchingWindowSeconds),
        maxConcurrency: queryRunsEventSource.maxConcurrency,
      }),
    );
  }
}
