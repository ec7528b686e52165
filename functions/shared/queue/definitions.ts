import { envNames } from '../config';

/**
 * The ingest queue, its dead-letter queue and the consumer's event source settings: one source for the
 * CDK stacks and for the local poller that plays the Lambda event source mapping.
 */
export const ingestQueue = {
  name: 'flock-ingest',
  envVar: envNames.ingestQueueUrl,
  /** A message whose processing failed this many times moves to the DLQ. */
  maxReceiveCount: 5,
  /** AWS guidance: about six times the consumer's timeout. */
  visibilityTimeoutSeconds: 180,
  retentionDays: 4,
} as const;

export const deadLetterQueue = {
  name: 'flock-ingest-dlq',
  envVar: envNames.ingestDlqUrl,
  retentionDays: 14,
} as const;

/**
 * The exports queue (docs/plugins.md "Exports"): processed events of projects with an enabled export
 * plugin config, from the consumer after it stored them, for the exports function. Its own DLQ, so an
 * export that keeps failing never touches ingestion.
 */
export const exportsQueue = {
  name: 'flock-exports',
  envVar: envNames.exportsQueueUrl,
  maxReceiveCount: 5,
  /** About six times the exports function's timeout: a retry comes after this (SQS's backoff). */
  visibilityTimeoutSeconds: 720,
  retentionDays: 4,
} as const;

export const exportsDeadLetterQueue = {
  name: 'flock-exports-dlq',
  envVar: envNames.exportsDlqUrl,
  retentionDays: 14,
} as const;

/**
 * The exports function's event source: what PostHog's exportEvents buffer does (at most 10 s or
 * 1 MiB by default) is done by the batching window and the batch size. A batch of 20 messages
 * is at most 5 MiB of events, inside Lambda's 6 MB invoke payload.
 */
export const exportsEventSource = {
  batchSize: 20,
  maxBatchingWindowSeconds: 10,
  reportBatchItemFailures: true,
  maxConcurrency: 5,
  functionTimeoutSeconds: 120,
} as const;

/**
 * The lake queue (docs/lake.md): every stored event, from the consumer after it stored it, for the lake
 * function, which receives it itself on its schedule. Its own DLQ, so a lake that keeps failing never
 * touches ingestion.
 */
export const lakeQueue = {
  name: 'flock-lake',
  envVar: envNames.lakeQueueUrl,
  maxReceiveCount: 5,
  /** Twice the lake function's timeout: a message comes back only once its writer's time is over. */
  visibilityTimeoutSeconds: 1_800,
  retentionDays: 4,
  /**
   * How old a hand-off must be before the lake writer checks it against the event items
   * (functions/lake/settle.ts): a write that raced it was signed within a consumer invocation that
   * began before the hand-off (at most the consumer's 30 s timeout), and DynamoDB refuses a request
   * signed more than 5 minutes ago (SigV4), so by then it has landed or never will; a minute more for
   * the clocks. The consumer sends its hand-offs with this delay (SQS's DelaySeconds, at most 900).
   */
  settleSeconds: 30 + 300 + 60,
} as const;

export const lakeDeadLetterQueue = {
  name: 'flock-lake-dlq',
  envVar: envNames.lakeDlqUrl,
  retentionDays: 14,
} as const;

/**
 * When the lake function writes (docs/lake.md): every `scheduleMinutes` it drains the lake queue,
 * writing one file per project and date each time it holds `flushEvents` events or `flushBytes` of
 * their messages' JSON text, and once more when the queue is empty or its time
 * (`functionTimeoutSeconds` less `reserveSeconds`) is spent. 100,000 of the bench's events are about
 * 130 MB of JSON; the function has 2 GB for them, their rows and DuckDB's table.
 */
export const lakeFlush = {
  scheduleMinutes: 5,
  flushEvents: 100_000,
  flushBytes: 256 * 1024 * 1024,
  functionTimeoutSeconds: 900,
  reserveSeconds: 120,
} as const;

/**
 * The queue of async query runs (docs/query-api.md "Async queries"): the query function sends one
 * message per async query (its project, id and run token; the query itself waits in the status item)
 * and the same function, through its event source, runs it. A run found no longer pending (cancelled,
 * replaced, already picked up, or past its pickup window) is dropped, so a redelivery never runs a
 * query twice. Nothing in it is worth keeping past a day: it lives in the stateless stack.
 */
export const queryRunsQueue = {
  name: 'flock-query-runs',
  envVar: envNames.queryRunsQueueUrl,
  /** A run whose invocation failed (the function crashed) is received again once and then dropped. */
  maxReceiveCount: 2,
  /** Six times the query function's timeout (10 s). */
  visibilityTimeoutSeconds: 60,
  retentionDays: 1,
} as const;

export const queryRunsDeadLetterQueue = { name: 'flock-query-runs-dlq', retentionDays: 1 } as const;

/**
 * The query function's event source on the runs queue: one run per invocation, as soon as it is sent,
 * and at most `maxConcurrency` runs at once, so a flood of async queries cannot take the account's
 * concurrency from the API.
 */
export const queryRunsEventSource = {
  batchSize: 1,
  maxBatchingWindowSeconds: 0,
  maxConcurrency: 5,
} as const;

export const consumerEventSource = {
  /** Records per invocation; above 10 the batching window is required. */
  batchSize: 100,
  maxBatchingWindowSeconds: 2,
  reportBatchItemFailures: true,
  maxConcurrency: 20,
  functionTimeoutSeconds: 30,
} as const;

/**
 * Events are packed into as few messages as fit. 256 KiB keeps messages valid on queues created
 * before SQS raised its limit to 1 MiB, and a SendMessageBatch call carries up to 1 MiB in total.
 */
export const messageLimits = {
  maxMessageBytes: 256 * 1024,
  maxBatchBytes: 1024 * 1024,
  maxBatchEntries: 10,
} as const;

/**
 * What one capture request may carry. An event is queued as one JSON object; above `maxEventBytes`
 * it is dropped and counted (`EventsDropped{reason=too_large}`) while the rest of its request is
 * queued: 240 KiB leaves room in a 256 KiB message for the envelope (whose only client-chosen parts
 * come from headers, at most 10 KiB on API Gateway), and keeps a stored event well under DynamoDB's
 * 400 KB item limit. A request with more than `maxEventsPerRequest` events is refused 413, which
 * posthog-node and posthog-python answer by halving their batch. `maxEventsPerMessage` bounds the
 * work of one consumer invocation: `consumerEventSource.batchSize` messages of at most this many.
 */
export const captureLimits = {
  maxEventBytes: 240 * 1024,
  maxEventsPerRequest: 5_000,
  maxEventsPerMessage: 100,
} as const;
