import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { Message } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import { consumerEventSource } from '../../functions/shared/queue/definitions';
import type { LocalFunction } from './function-host';

export interface PollerOptions {
  readonly endpoint: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  /** The function the queue's event source invokes (the consumer, the exports function). */
  readonly consumer: LocalFunction;
  /** Its event source's batch size and batching window. @default consumerEventSource */
  readonly eventSource?: EventSourceSettings;
  /** Concurrent batches: the event source mapping starts with 5 pollers. @default 5 */
  readonly concurrency?: number;
  readonly onError?: (error: unknown) => void;
  /**
   * Make failed messages visible again after this many seconds instead of the queue's visibility
   * timeout: retries come sooner (tests, development) while in-flight messages stay invisible.
   */
  readonly retryDelaySeconds?: number;
}

/** What the poller plays of an event source mapping (functions/shared/queue/definitions.ts). */
interface EventSourceSettings {
  readonly batchSize: number;
  readonly maxBatchingWindowSeconds: number;
}

/**
 * The consumer's event source locally: the stack's (consumerEventSource), with a batching window a
 * test may shorten (`--ingest-batching-window`).
 */
export function ingestEventSource(batchingWindowSeconds?: number): EventSourceSettings {
  return {
    batchSize: consumerEventSource.batchSize,
    maxBatchingWindowSeconds: batchingWindowSeconds ?? consumerEventSource.maxBatchingWindowSeconds,
  };
}

/**
 * How often a poller whose batch is gathering asks the queue for more. Each ask is a signed SDK
 * request whose client and server both run on the emulators' thread (over a millisecond of its CPU
 * on the shared machine, the pipeline bench's bottleneck): at every 20 ms, five pollers in their windows asked about 200 times a second however little the queue held
 * (bench/pipeline). Messages arriving meanwhile wait in the queue and join the batch at the next ask.
 */
export const windowPollMs = 100;

/**
 * How long an idle poller's receive waits for a message: SQS's longest long poll, as Lambda's event
 * source polls. A message sent meanwhile (or made visible again for a retry) answers the waiting
 * receive at once, in SQS as in the emulator, so the wait adds no latency; it only spares the
 * receives: waiting 1 s at a time, the twelve pollers of an idle local server cost about 2 s of CPU a
 * minute (every integration test's server, and `npm start` left running).
 */
export const idleWaitSeconds = 20;

/** Lambda's synchronous invoke payload limit: the event source never sends a larger batch. */
const maxBatchBytes = 6 * 1024 * 1024 - 64 * 1024;

/** A received message as the event source hands it to the consumer (benches build theirs with it). */
export function toRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  };
}

/**
 * Plays the Lambda SQS event source mapping locally: gathers up to `batchSize` records or until
 * the batching window closes, invokes the consumer, deletes what succeeded and leaves reported
 * failures (or the whole batch, if the handler throws) to reappear after the visibility timeout;
 * the queue's redrive policy then moves a message to the DLQ after `maxReceiveCount` receives.
 */
export class QueuePoller {
  private readonly client: SQSClient;
  private running = false;
  private workers: Promise<void>[] = [];
  private inFlight = 0;
  /** Aborts the receives still waiting when the poller stops, rather than waiting them out. */
  private stopping = new AbortController();

  constructor(private readonly options: PollerOptions) {
    this.client = new SQSClient({
      endpoint: options.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      useQueueUrlAsEndpoint: false,
      // The event source is AWS's side of the queue: the function gets each record's md5OfBody and
      // checks nothing itself. Verifying the MD5 of every received body here would check fauxqs
      // against itself, on the thread every emulator shares (about 2 µs per event of a capture message).
      md5: false,
    });
  }

  start(): void {
    this.running = true;
    this.stopping = new AbortController();
    const concurrency = this.options.concurrency ?? 5;
    this.workers = Array.from({ length: concurrency }, () => this.work());
  }

  /** Stops polling after the batches in flight finish. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort();
    await Promise.all(this.workers);
    this.client.destroy();
  }

  get busy(): boolean {
    return this.inFlight > 0;
  }

  /**
   * One worker: one batch invoked at a time (one container's), the next one gathered meanwhile. An
   * event source mapping's pollers are not the function's sandboxes: they go on receiving while a
   * batch runs, so a batch whose window closed waits for a free sandbox, not for its own window after
   * the previous batch ended. A worker that gathered only after its batch returned left its container
   * idle through each gather, and through the whole batching window of the last, partly filled batch
   * of a burst (two of the pipeline bench's 24 seconds). A gathered batch waits at most one
   * invocation, within the function's timeout, and so well within the queue's visibility timeout.
   */
  private async work(): Promise<void> {
    let running: Promise<void> | undefined;
    try {
      while (this.running) {
        try {
          const batch = await this.gather();
          if (batch.length === 0) continue;
          await running;
          running = this.invoke(batch).catch(async (error: unknown) => {
            this.options.onError?.(error);
            await sleep(1000);
          });
        } catch (error) {
          // The idle wait that stop() abandoned.
          if (this.stopping.signal.aborted && (error as Error).name === 'AbortError') break;
          this.options.onError?.(error);
          await sleep(1000);
        }
      }
    } finally {
      await running;
    }
  }

  /**
   * Receives up to `max` messages. Only an idle wait is `abortable` (by `stop()`): a batch being
   * gathered is finished and handed to the function. A message the queue hands to an abandoned
   * receive comes back after its visibility timeout, as in SQS.
   */
  private async receive(max: number, waitSeconds: number, abortable = false): Promise<Message[]> {
    const result = await this.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.options.queueUrl,
        MaxNumberOfMessages: Math.min(10, max),
        WaitTimeSeconds: waitSeconds,
        MessageSystemAttributeNames: ['All'],
      }),
      abortable ? { abortSignal: this.stopping.signal } : {},
    );
    return result.Messages ?? [];
  }

  private async gather(): Promise<Message[]> {
    const { batchSize, maxBatchingWindowSeconds } = this.options.eventSource ?? consumerEventSource;
    const batch = await this.receive(batchSize, idleWaitSeconds, true);
    if (batch.length === 0) return batch;
    this.inFlight++;
    const windowEnds = Date.now() + maxBatchingWindowSeconds * 1000;
    let bytes = batch.reduce((sum, message) => sum + Buffer.byteLength(message.Body ?? ''), 0);
    while (this.running && batch.length < batchSize && Date.now() < windowEnds && bytes < maxBatchBytes) {
      const more = await this.receive(batchSize - batch.length, 0);
      if (more.length === 0) {
        await sleep(Math.min(windowPollMs, Math.max(0, windowEnds - Date.now())));
        continue;
      }
      batch.push(...more);
      bytes += more.reduce((sum, message) => sum + Buffer.byteLength(message.Body ?? ''), 0);
    }
    return batch;
  }

  private async invoke(batch: Message[]): Promise<void> {
    try {
      const records = batch.map((message) => toRecord(message, this.options.queueArn));
      let failed: Set<string>;
      try {
        const event: SQSEvent = { Records: records };
        const response = await this.options.consumer.invoke<SQSBatchResponse | undefined>(event);
        failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      } catch (error) {
        this.options.onError?.(error);
        failed = new Set(records.map((record) => record.messageId));
      }
      const done = records.filter((record) => !failed.has(record.messageId));
      for (let i = 0; i < done.length; i += 10) {
        await this.client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: this.options.queueUrl,
            Entries: done
              .slice(i, i + 10)
              .map((record, n) => ({ Id: String(n), ReceiptHandle: record.receiptHandle })),
          }),
        );
      }
      await this.scheduleRetries(records.filter((record) => failed.has(record.messageId)));
    } finally {
      this.inFlight--;
    }
  }

  private async scheduleRetries(failed: SQSRecord[]): Promise<void> {
    const delay = this.options.retryDelaySeconds;
    if (delay === undefined) return;
    for (let i = 0; i < failed.length; i += 10) {
      await this.client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: this.options.queueUrl,
          Entries: failed.slice(i, i + 10).map((record, n) => ({
            Id: String(n),
            ReceiptHandle: record.receiptHandle,
            VisibilityTimeout: delay,
          })),
        }),
      );
    }
  }
}
