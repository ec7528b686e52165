import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import type { Message } from '@aws-sdk/client-sqs';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { chunked } from '../../functions/shared/chunks';
import { mapLimited } from '../../functions/shared/concurrency';
import { exportMessageSchema } from '../../functions/shared/queue/export-message';
import { lakeMessageSchema, parseLakeBody } from '../../functions/shared/queue/lake-message';
import { captureMessageSchema } from '../../functions/shared/queue/message';
import type { IngestFailure } from '../../functions/shared/db/failures';

/**
 * `npm run flock -- dlq …`: what sits in a dead-letter queue (the ingest queue's, or with
 * `--queue exports` the exports queue's, `--queue lake` the lake queue's), why, and moving it back or
 * away. Works on any SQS (the
 * deployed stack or the local fauxqs); see README "Runbook".
 */
export interface DlqTarget {
  readonly sqs: SQSClient;
  /** The pair worked on: the queue messages are redriven to, and its dead-letter queue. */
  readonly queues: { readonly source: string; readonly dlq: string };
  /** Every queue of the stacks, by name: what `stats` reports. */
  readonly allQueues: Readonly<Record<string, string>>;
  /** How `stats` learns each queue's oldest message age: `cloudWatchOldestAges` or `deadLetterOldestAges`. */
  readonly oldestAges: OldestAgeReader;
  /** Reads the failure records of a message (db/failures.ts), or none when the table is unknown. */
  readonly readFailures: (messageId: string) => Promise<IngestFailure[]>;
}

export interface QueueStats {
  readonly queue: string;
  readonly url: string;
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
  /** Seconds since the oldest message was sent (null when empty, or when it was not read: see `oldestAgeFrom`). */
  readonly oldestAgeSeconds: number | null;
  readonly oldestAgeFrom: OldestAgeSource;
}

/**
 * Where an oldest age came from: CloudWatch's `ApproximateAgeOfOldestMessage` (on AWS), a peek at a
 * dead-letter queue (locally), or nowhere: locally a live queue's oldest message is not read, because
 * reading it means receiving it, which spends one of its receives and hides it from the consumer.
 */
export type OldestAgeSource = 'cloudwatch' | 'peek' | 'not-read';

export interface OldestAge {
  readonly seconds: number | null;
  readonly from: OldestAgeSource;
}

/** The oldest message age of each queue given (name → URL), by name. */
export type OldestAgeReader = (
  queues: Readonly<Record<string, string>>,
) => Promise<Readonly<Record<string, OldestAge>>>;

export interface DeadMessage {
  readonly messageId: string;
  readonly projectId: number | null;
  readonly eventCount: number;
  readonly eventNames: string[];
  readonly distinctIds: string[];
  readonly sizeBytes: number;
  readonly firstSent: string | null;
  readonly receiveCount: number;
  /** Set on an exports queue message: the S3 Export config its events were for. */
  readonly pluginConfigId?: number;
  /** Set on a lake queue message: the source (ingest message) its events were stored from. */
  readonly lakeSource?: string;
  /** The body did not parse as a capture (or exports) message: why. */
  readonly undecodable?: string;
  readonly failures: IngestFailure[];
}

/** Listing hides each message at most this long; it is made visible again as soon as the listing ends. */
export const peekVisibilitySeconds = 5;

const attributeNumber = (attributes: Record<string, string> | undefined, name: string): number =>
  Number(attributes?.[name] ?? 0);

function decode(message: Message): Omit<DeadMessage, 'failures'> {
  const body = message.Body ?? '';
  const sent = message.Attributes?.SentTimestamp;
  const common = {
    messageId: message.MessageId!,
    sizeBytes: Buffer.byteLength(body),
    firstSent: sent ? new Date(Number(sent)).toISOString() : null,
    receiveCount: attributeNumber(message.Attributes, 'ApproximateReceiveCount'),
  };
  const undecodable = (reason: string) => ({
    ...common,
    projectId: null,
    eventCount: 0,
    eventNames: [],
    distinctIds: [],
    undecodable: reason,
  });
  let parsed: ReturnType<typeof captureMessageSchema.safeParse>;
  try {
    parsed = captureMessageSchema.safeParse(JSON.parse(body));
  } catch (error) {
    // Not JSON: perhaps a deflated lake message.
    return decodeLake(body, common) ?? undecodable(String(error));
  }
  if (!parsed.success)
    return decodeExport(body, common) ?? decodeLake(body, common) ?? undecodable(parsed.error.message);
  const events = parsed.data.events;
  return {
    ...common,
    projectId: parsed.data.project_id,
    eventCount: events.length,
    eventNames: [
      ...new Set(events.map((event) => (typeof event.data.event === 'string' ? event.data.event : '?'))),
    ],
    distinctIds: [...new Set(events.map((event) => event.distinct_id))],
  };
}

type Common = Pick<DeadMessage, 'messageId' | 'sizeBytes' | 'firstSent' | 'receiveCount'>;

/** A dead message's summary from its project and events (event name and distinct id of each). */
const summary = (
  common: Common,
  projectId: number,
  events: readonly { readonly event: string; readonly distinct_id: string }[],
): Omit<DeadMessage, 'failures'> => ({
  ...common,
  projectId,
  eventCount: events.length,
  eventNames: [...new Set(events.map((event) => event.event))],
  distinctIds: [...new Set(events.map((event) => event.distinct_id))],
});

/** An exports queue message (events the consumer handed to an S3 Export config), or undefined. */
function decodeExport(body: string, common: Common): Omit<DeadMessage, 'failures'> | undefined {
  let parsed: ReturnType<typeof exportMessageSchema.safeParse>;
  try {
    parsed = exportMessageSchema.safeParse(JSON.parse(body));
  } catch {
    return undefined;
  }
  if (!parsed.success) return undefined;
  return {
    ...summary(common, parsed.data.project_id, parsed.data.events),
    pluginConfigId: parsed.data.plugin_config_id,
  };
}

/**
 * A lake queue message (stored events the consumer handed to the lake, JSON or deflated), or
 * undefined; `lakeSource` names the ingest message they came from (its body's digest).
 */
function decodeLake(body: string, common: Common): Omit<DeadMessage, 'failures'> | undefined {
  const parsed = lakeMessageSchema.safeParse(parseLakeBody(body));
  if (!parsed.success) return undefined;
  return { ...summary(common, parsed.data.project_id, parsed.data.events), lakeSource: parsed.data.source };
}

/**
 * Up to `limit` distinct messages of a queue, without consuming them: each receive hides its messages
 * for `peekVisibilitySeconds`, and every receipt is made visible again (visibility 0) before returning.
 * Stops at the limit, when the queue answers nothing, or after three receives brought nothing new.
 */
export async function peek(sqs: SQSClient, queueUrl: string, limit: number): Promise<Message[]> {
  const seen = new Map<string, Message>();
  let fruitless = 0;
  try {
    while (seen.size < limit && fruitless < 3) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(10, limit - seen.size),
          VisibilityTimeout: peekVisibilitySeconds,
          MessageSystemAttributeNames: ['All'],
          WaitTimeSeconds: 0,
        }),
      );
      if (Messages.length === 0) break;
      let fresh = 0;
      for (const message of Messages) {
        if (!seen.has(message.MessageId!)) fresh++;
        seen.set(message.MessageId!, message);
      }
      fruitless = fresh === 0 ? fruitless + 1 : 0;
    }
  } finally {
    await release(sqs, queueUrl, [...seen.values()]);
  }
  return [...seen.values()].slice(0, limit);
}

async function release(sqs: SQSClient, queueUrl: string, messages: readonly Message[]): Promise<void> {
  for (const chunk of chunked(messages, 10)) {
    // A receipt whose visibility already ran out is refused: the message is visible anyway.
    await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queueUrl,
        Entries: chunk.map((message, index) => ({
          Id: String(index),
          ReceiptHandle: message.ReceiptHandle!,
          VisibilityTimeout: 0,
        })),
      }),
    );
  }
}

const queueNameOf = (url: string): string => new URL(url).pathname.split('/').pop()!;

/** CloudWatch keeps SQS metrics per minute; an idle queue may report nothing for a while. */
const oldestAgeLookbackMs = 15 * 60_000;

/**
 * On AWS: each queue's latest `ApproximateAgeOfOldestMessage` (AWS/SQS, one-minute maximum), in one
 * GetMetricData call; a queue without a datapoint in the last 15 minutes has no age (null).
 */
export const cloudWatchOldestAges =
  (cloudWatch: CloudWatchClient, now: () => Date = () => new Date()): OldestAgeReader =>
  async (queues) => {
    const names = Object.keys(queues);
    const end = now();
    const { MetricDataResults = [] } = await cloudWatch.send(
      new GetMetricDataCommand({
        StartTime: new Date(end.getTime() - oldestAgeLookbackMs),
        EndTime: end,
        ScanBy: 'TimestampDescending',
        MetricDataQueries: names.map((name, index) => ({
          Id: `q${index}`,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/SQS',
              MetricName: 'ApproximateAgeOfOldestMessage',
              Dimensions: [{ Name: 'QueueName', Value: queueNameOf(queues[name]!) }],
            },
            Period: 60,
            Stat: 'Maximum',
          },
          ReturnData: true,
        })),
      }),
    );
    return Object.fromEntries(
      names.map((name, index) => {
        const latest = MetricDataResults.find((result) => result.Id === `q${index}`)?.Values?.[0];
        return [name, { seconds: latest ?? null, from: 'cloudwatch' } satisfies OldestAge];
      }),
    );
  };

/**
 * Where there is no CloudWatch (the local emulator): the dead-letter queues named are peeked (their
 * messages are not live: a receive costs them nothing); a live queue is never received from, so its
 * oldest age is not read.
 */
export const deadLetterOldestAges =
  (sqs: SQSClient, deadLetterQueues: readonly string[]): OldestAgeReader =>
  async (queues) => {
    const ages: Record<string, OldestAge> = {};
    for (const [name, url] of Object.entries(queues)) {
      if (!deadLetterQueues.includes(name)) {
        ages[name] = { seconds: null, from: 'not-read' };
        continue;
      }
      const sample = await peek(sqs, url, 10);
      const oldest = Math.min(
        ...sample.map((message) => Number(message.Attributes?.SentTimestamp ?? Date.now())),
      );
      ages[name] = {
        seconds: sample.length > 0 ? Math.round((Date.now() - oldest) / 1000) : null,
        from: 'peek',
      };
    }
    return ages;
  };

const depthAttributes = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
] as const;

interface QueueDepth {
  readonly visible: number;
  readonly inFlight: number;
  readonly delayed: number;
}

async function depth(sqs: SQSClient, url: string): Promise<QueueDepth> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: [...depthAttributes] }),
  );
  return {
    visible: attributeNumber(Attributes, 'ApproximateNumberOfMessages'),
    inFlight: attributeNumber(Attributes, 'ApproximateNumberOfMessagesNotVisible'),
    delayed: attributeNumber(Attributes, 'ApproximateNumberOfMessagesDelayed'),
  };
}

/** Depths from the queues' attributes; oldest ages from `target.oldestAges` (never a receive from a live queue). */
export async function stats(target: DlqTarget): Promise<QueueStats[]> {
  const ages = await target.oldestAges(target.allQueues);
  const result: QueueStats[] = [];
  for (const [queue, url] of Object.entries(target.allQueues)) {
    const age = ages[queue] ?? { seconds: null, from: 'not-read' };
    result.push({
      queue,
      url,
      ...(await depth(target.sqs, url)),
      oldestAgeSeconds: age.seconds,
      oldestAgeFrom: age.from,
    });
  }
  return result;
}

export async function list(target: DlqTarget, limit: number): Promise<DeadMessage[]> {
  const messages = await peek(target.sqs, target.queues.dlq, limit);
  return mapLimited(messages, 16, async (message) => ({
    ...decode(message),
    failures: await target.readFailures(message.MessageId!),
  }));
}

export async function show(
  target: DlqTarget,
  messageId: string,
  scanLimit = 10_000,
): Promise<DeadMessage | undefined> {
  const messages = await peek(target.sqs, target.queues.dlq, scanLimit);
  const message = messages.find((candidate) => candidate.MessageId === messageId);
  if (!message) return undefined;
  return { ...decode(message), failures: await target.readFailures(messageId) };
}

export interface RedriveProgress {
  (moved: number, total: number): void;
}

export interface RedriveResult {
  readonly method: 'StartMessageMoveTask' | 'receive-send-delete';
  readonly moved: number;
  readonly failed: number;
  readonly status: string;
}

async function queueArn(sqs: SQSClient, url: string): Promise<string> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  return Attributes!.QueueArn!;
}

const unsupported = (error: unknown): boolean =>
  /UnsupportedOperation|InvalidAction|NotImplemented|Unknown(Operation|Action)|not (supported|implemented)/i.test(
    `${(error as { name?: string }).name ?? ''} ${(error as { message?: string }).message ?? ''}`,
  );

/**
 * Moves dead-lettered messages back to their source queue. On AWS (and without --max, which SQS's move
 * task cannot bound), SQS's own StartMessageMoveTask does it, polled with ListMessageMoveTasks; where
 * the API is missing (the local fauxqs) the messages are sent to the source queue, then deleted from
 * the DLQ. A message sent twice (a crash between send and delete) is stored once (events are keyed
 * by uuid), exported once (the exports function claims each event per config) and written to the
 * lake once (the lake writer claims each source's events: db/lake-claims.ts).
 */
export async function redrive(
  target: DlqTarget,
  options: { max?: number; pollMs?: number; onProgress?: RedriveProgress } = {},
): Promise<RedriveResult> {
  if (options.max === undefined) {
    const sourceArn = await queueArn(target.sqs, target.queues.dlq);
    let taskHandle: string | undefined;
    try {
      ({ TaskHandle: taskHandle } = await target.sqs.send(
        new StartMessageMoveTaskCommand({
          SourceArn: sourceArn,
          DestinationArn: await queueArn(target.sqs, target.queues.source),
        }),
      ));
    } catch (error) {
      if (!unsupported(error)) throw error;
    }
    if (taskHandle)
      return pollMoveTask(target.sqs, sourceArn, taskHandle, options.pollMs ?? 2000, options.onProgress);
  }
  return moveItself(target, options.max ?? Number.POSITIVE_INFINITY, options.onProgress);
}

/** Listings in a row that may lack the task just started (the listing can lag the start) before it counts as lost. */
const unlistedPollsAllowed = 5;

/** Polls the task `taskHandle` names, and only that one: another task of the same queue is never reported. */
async function pollMoveTask(
  sqs: SQSClient,
  sourceArn: string,
  taskHandle: string,
  pollMs: number,
  onProgress?: RedriveProgress,
): Promise<RedriveResult> {
  for (let unlisted = 0; ;) {
    const { Results = [] } = await sqs.send(
      new ListMessageMoveTasksCommand({ SourceArn: sourceArn, MaxResults: 10 }),
    );
    const task = Results.find((candidate) => candidate.TaskHandle === taskHandle);
    if (!task && ++unlisted >= unlistedPollsAllowed)
      throw new Error(`The message move task ${taskHandle} is not listed: check it in the SQS console.`);
    if (task) {
      const moved = task.ApproximateNumberOfMessagesMoved ?? 0;
      onProgress?.(moved, task.ApproximateNumberOfMessagesToMove ?? moved);
      if (task.Status !== 'RUNNING') {
        if (task.Status === 'FAILED')
          throw new Error(`The message move task failed: ${task.FailureReason ?? 'no reason given'}`);
        return { method: 'StartMessageMoveTask', moved, failed: 0, status: task.Status ?? 'UNKNOWN' };
      }
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

async function moveItself(
  target: DlqTarget,
  max: number,
  onProgress?: RedriveProgress,
): Promise<RedriveResult> {
  const { sqs } = target;
  const total = Math.min(max, (await depth(sqs, target.queues.dlq)).visible);
  let moved = 0;
  let failed = 0;
  while (moved + failed < max) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: target.queues.dlq,
        MaxNumberOfMessages: Math.min(10, max - moved - failed),
        VisibilityTimeout: 30,
        WaitTimeSeconds: 0,
      }),
    );
    if (Messages.length === 0) break;
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: target.queues.source,
        Entries: Messages.map((message, index) => ({ Id: String(index), MessageBody: message.Body! })),
      }),
    );
    const ok = new Set((sent.Successful ?? []).map((entry) => Number(entry.Id)));
    failed += Messages.length - ok.size;
    const done = Messages.filter((_, index) => ok.has(index));
    if (done.length > 0) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: target.queues.dlq,
          Entries: done.map((message, index) => ({
            Id: String(index),
            ReceiptHandle: message.ReceiptHandle!,
          })),
        }),
      );
    }
    moved += done.length;
    onProgress?.(moved, Math.max(total, moved));
    if (ok.size === 0) break;
  }
  return { method: 'receive-send-delete', moved, failed, status: failed > 0 ? 'PARTIAL' : 'COMPLETED' };
}

/** What a purge deletes: the dead-letter queue by name and URL, and its depth now. */
export async function purgeQuestion(target: DlqTarget): Promise<string> {
  const url = target.queues.dlq;
  const { visible, inFlight, delayed } = await depth(target.sqs, url);
  return (
    `Purge the dead-letter queue ${queueNameOf(url)} (${url}): ${visible} visible, ${inFlight} in flight ` +
    `and ${delayed} delayed message(s) are deleted for good.`
  );
}

/**
 * Purges the dead-letter queue once `confirm` accepts the question naming it and its depth; resolves
 * whether it was purged.
 */
export async function purge(
  target: DlqTarget,
  confirm: (question: string) => Promise<boolean>,
): Promise<boolean> {
  if (!(await confirm(await purgeQuestion(target)))) return false;
  await target.sqs.send(new PurgeQueueCommand({ QueueUrl: target.queues.dlq }));
  return true;
}

export function newSqsClient(endpoint?: string): SQSClient {
  return new SQSClient(endpoint ? { endpoint, useQueueUrlAsEndpoint: false } : {});
}
