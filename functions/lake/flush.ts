import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Message } from '@aws-sdk/client-sqs';
import { randomBytes } from 'node:crypto';
import { chunked } from '../shared/chunks';
import { forEachLimited } from '../shared/concurrency';
import { readGroupTypeMapping } from '../shared/db/group-types';
import { claimLakeSource } from '../shared/db/lake-claims';
import { lakeDateOf, lakeFileKey } from '../shared/lake/layout';
import { lakeTimeName } from '../shared/lake/listing';
import type { LakeEvent } from '../shared/lake/row';
import { lakeRowsOf } from '../shared/lake/row';
import { logger } from '../shared/logger';
import { countMetric, metricNames } from '../shared/metrics';
import { sqsClient } from '../shared/queue/client';
import type { LakeMessage } from '../shared/queue/lake-message';
import { lakeFlush } from '../shared/queue/definitions';
import { lakeBodyJson, lakeMessageSchema, parseLakeJson } from '../shared/queue/lake-message';
import { parquetOf } from './parquet';
import { settledEvents, unsettledMs } from './settle';
import { lakeObjectExists, putLakeObject } from './s3';
import { s3LakeStore } from './store';
import { lakeFileMerged } from './written';

/**
 * The lake writer (docs/lake.md): drains the lake queue, and each time it holds `flushEvents` events
 * or `flushBytes` of their messages' JSON (or the queue is empty, or its time is spent) writes one
 * Parquet file per project and date. Exactly once (docs/lake.md): a hand-off's events are written
 * only if their event items still name its source once every write that raced it has landed
 * (settle.ts), each source's events are claimed for the flush before its files are uploaded
 * (db/lake-claims.ts), and a message is deleted from the queue only once every file holding its
 * events is in the bucket. A message whose file failed stays in the queue and comes back after the
 * visibility timeout (after `lakeQueue.maxReceiveCount` receives, to the lake DLQ).
 */

export interface LakeSettings {
  readonly queueUrl: string;
  readonly bucket: string;
  readonly tableName: string;
  /** The events table, whose items the settle check reads. */
  readonly eventsTable: string;
  readonly flushEvents: number;
  /** JSON bytes of held messages after which it flushes (`lakeFlush.flushBytes` unless given). */
  readonly flushBytes?: number;
  readonly visibilitySeconds: number;
  /** How old a hand-off must be before it is checked and written (`lakeQueue.settleSeconds`). */
  readonly settleSeconds: number;
}

interface Held {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly message: LakeMessage;
  /** Epoch ms until which no one else receives it: asked for before the receive, plus the visibility. */
  readonly heldUntil: number;
  /** Epoch ms the consumer sent it (SQS's SentTimestamp). */
  readonly sentAt: number;
}

export interface FlushOutcome {
  readonly written: number;
  readonly duplicates: number;
  readonly files: number;
  /** Messages left in the queue for a later run. */
  readonly failed: number;
}

/** Projects whose files are written at once. */
const projectsInFlight = 4;

/** A received lake message and the length of its JSON text, or undefined if it is not one. */
function parse(message: Message): { message: LakeMessage; bytes: number } | undefined {
  const json = lakeBodyJson(message.Body ?? '');
  if (json === undefined) return undefined;
  const parsed = lakeMessageSchema.safeParse(parseLakeJson(json));
  return parsed.success ? { message: parsed.data, bytes: json.length } : undefined;
}

async function deleteMessages(queueUrl: string, receiptHandles: readonly string[]): Promise<void> {
  for (const batch of chunked(receiptHandles, 10)) {
    const result = await sqsClient.send(
      new DeleteMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: batch.map((handle, index) => ({ Id: String(index), ReceiptHandle: handle })),
      }),
    );
    // Not deleted: received again after the visibility timeout, and then found written.
    if ((result.Failed ?? []).length > 0)
      logger.warn('Lake messages not deleted', { count: result.Failed!.length });
  }
}

/** A name no other flush uses: its time first, so a partition's files list in writing order. */
function flushName(now: Date): string {
  return `${lakeTimeName(now)}-${randomBytes(6).toString('hex')}`;
}

/**
 * One project's events of a flush by source: each source's events still held by it (settle.ts; a
 * uuid once) by date, and the messages that carried them. A source's events may arrive in several
 * messages (packed into more than one, or handed over again).
 */
async function bySource(
  settings: LakeSettings,
  projectId: number,
  held: readonly Held[],
): Promise<{
  sources: Map<string, { dates: Map<string, LakeEvent[]>; messages: Held[] }>;
  superseded: number;
}> {
  const { kept, superseded } = await settledEvents(
    settings.eventsTable,
    projectId,
    held.map((entry) => entry.message),
  );
  type Group = { dates: Map<string, LakeEvent[]>; messages: Held[]; seen: Set<string> };
  const sources = new Map<string, Group>();
  held.forEach((entry, at) => {
    const { source } = entry.message;
    const group: Group = sources.get(source) ?? { dates: new Map(), messages: [], seen: new Set() };
    sources.set(source, group);
    group.messages.push(entry);
    for (const event of kept[at]!) {
      if (group.seen.has(event.uuid)) continue;
      group.seen.add(event.uuid);
      const date = lakeDateOf(event.timestamp);
      group.dates.set(date, [...(group.dates.get(date) ?? []), event]);
    }
  });
  return { sources, superseded };
}

/** One project's messages of a flush: checked, claimed per source, written (one file per date), or failed. */
async function flushProject(
  settings: LakeSettings,
  projectId: number,
  held: readonly Held[],
  name: string,
  now: Date,
  fileExists: (key: string) => Promise<boolean>,
): Promise<FlushOutcome & { readonly done: readonly Held[] }> {
  const groupTypes = await readGroupTypeMapping(settings.tableName, projectId);
  // Each date's events, turned into rows only as their file is written (`lakeRowsOf`).
  const byDate = new Map<string, LakeEvent[]>();
  const failedMessages = new Set<string>();
  const { sources, superseded } = await bySource(settings, projectId, held);
  let duplicates = superseded;
  for (const [source, { dates, messages }] of sources) {
    if (dates.size === 0) continue;
    const outcome = await claimLakeSource(
      settings.tableName,
      projectId,
      {
        source,
        flush: name,
        dates: new Map([...dates].map(([date, events]) => [date, events.map((event) => event.uuid)])),
      },
      { now, heldUntil: Math.min(...messages.map((entry) => entry.heldUntil)), fileExists },
    );
    if (outcome.kind === 'busy') {
      for (const entry of messages) failedMessages.add(entry.messageId);
      continue;
    }
    for (const [date, events] of dates)
      for (const event of events) {
        // In the lake already: this source handed it over before.
        if (!outcome.uuids.has(event.uuid)) {
          duplicates++;
          continue;
        }
        const kept = byDate.get(date) ?? [];
        kept.push(event);
        byDate.set(date, kept);
      }
  }
  let written = 0;
  try {
    for (const [date, events] of byDate) {
      const file = await parquetOf(lakeRowsOf(events, groupTypes, now));
      await putLakeObject(settings.bucket, lakeFileKey(projectId, date, name), file);
      written += events.length;
    }
  } catch (error) {
    // The claims name files that do not exist: the messages come back and take them over.
    logger.error('Writing a lake file failed', { projectId, reason: String(error) });
    return { written: 0, duplicates, files: 0, failed: held.length, done: [] };
  }
  const done = held.filter((entry) => !failedMessages.has(entry.messageId));
  return { written, duplicates, files: byDate.size, failed: held.length - done.length, done };
}

/** Writes the held messages' events and deletes the messages that are now in the lake. */
export async function flushHeld(
  settings: LakeSettings,
  received: readonly Held[],
  now: Date,
): Promise<FlushOutcome> {
  const name = flushName(now);
  // Younger than the settle time (sent without the delay, or the clocks apart): left for a later
  // receive, after the visibility timeout.
  const held = received.filter(
    (entry) => unsettledMs(entry.sentAt, settings.settleSeconds, now.getTime()) === 0,
  );
  const unsettled = received.length - held.length;
  if (unsettled > 0) logger.warn('Lake messages left until they settle', { count: unsettled });
  const existence = new Map<string, Promise<boolean>>();
  const fileExists = (key: string): Promise<boolean> => {
    let known = existence.get(key);
    if (!known) {
      // Not in the bucket: perhaps compacted away (written.ts).
      known = lakeObjectExists(settings.bucket, key).then(
        (exists) => exists || lakeFileMerged(s3LakeStore(settings.bucket), key),
      );
      existence.set(key, known);
    }
    return known;
  };
  const byProject = new Map<number, Held[]>();
  for (const entry of held) {
    const list = byProject.get(entry.message.project_id) ?? [];
    list.push(entry);
    byProject.set(entry.message.project_id, list);
  }
  let written = 0;
  let duplicates = 0;
  let files = 0;
  let failed = unsettled;
  const done: Held[] = [];
  await forEachLimited([...byProject], projectsInFlight, async ([projectId, ofProject]) => {
    try {
      const outcome = await flushProject(settings, projectId, ofProject, name, now, fileExists);
      written += outcome.written;
      duplicates += outcome.duplicates;
      files += outcome.files;
      failed += outcome.failed;
      done.push(...outcome.done);
    } catch (error) {
      logger.error('Flushing a project to the lake failed', { projectId, reason: String(error) });
      failed += ofProject.length;
    }
  });
  await deleteMessages(
    settings.queueUrl,
    done.map((entry) => entry.receiptHandle),
  );
  countMetric(metricNames.lakeEventsWritten, written);
  countMetric(metricNames.lakeDuplicates, duplicates);
  countMetric(metricNames.lakeFiles, files);
  return { written, duplicates, files, failed };
}

/**
 * Drains the lake queue until it is empty or `deadline` (epoch ms) passes, flushing every
 * `settings.flushEvents` events or `settings.flushBytes` of their messages' JSON, and at the end.
 * The bytes bound what one flush holds in memory whatever its events weigh: 100,000 events of the
 * 240 KiB capture lets one through (with a person's 160 KiB) would be tens of GB, and a writer that
 * runs out of memory puts every project's held messages back, five times, then in the lake's DLQ.
 */
export async function drainLake(settings: LakeSettings, deadline: number): Promise<FlushOutcome> {
  const total = { written: 0, duplicates: 0, files: 0, failed: 0 };
  const flushBytes = settings.flushBytes ?? lakeFlush.flushBytes;
  for (;;) {
    const held = new Map<string, Held>();
    let events = 0;
    let bytes = 0;
    let empty = false;
    while (events < settings.flushEvents && bytes < flushBytes && Date.now() < deadline) {
      const heldUntil = Date.now() + settings.visibilitySeconds * 1000;
      const { Messages = [] } = await sqsClient.send(
        new ReceiveMessageCommand({
          QueueUrl: settings.queueUrl,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: settings.visibilitySeconds,
          WaitTimeSeconds: 1,
          MessageSystemAttributeNames: ['SentTimestamp'],
        }),
      );
      if (Messages.length === 0) {
        empty = true;
        break;
      }
      const invalid: string[] = [];
      for (const received of Messages) {
        const parsed = parse(received);
        if (!parsed) {
          logger.error('Dropping a message that is not a lake message', { messageId: received.MessageId });
          invalid.push(received.ReceiptHandle!);
          continue;
        }
        const { message } = parsed;
        // Received again while held (a short visibility timeout): the latest receipt deletes it.
        if (!held.has(received.MessageId!)) {
          events += message.events.length;
          bytes += parsed.bytes;
        }
        held.set(received.MessageId!, {
          messageId: received.MessageId!,
          receiptHandle: received.ReceiptHandle!,
          message,
          heldUntil,
          sentAt: Number(received.Attributes?.SentTimestamp ?? Date.now()),
        });
      }
      await deleteMessages(settings.queueUrl, invalid);
    }
    if (held.size > 0) {
      const outcome = await flushHeld(settings, [...held.values()], new Date());
      total.written += outcome.written;
      total.duplicates += outcome.duplicates;
      total.files += outcome.files;
      total.failed += outcome.failed;
    }
    if (empty || Date.now() >= deadline) return total;
  }
}
