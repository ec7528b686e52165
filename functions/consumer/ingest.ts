import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import type { IngestFailure } from '../shared/db/failures';
import { recordFailures } from '../shared/db/failures';
import { logger } from '../shared/logger';
import { recordDefinitions, SeenTodayCache } from './definitions';
import { GroupTypeRegistry } from './group-types';
import { IngestedProjects } from './ingested';
import { PropertyValueSampler } from './property-values';
import { processPersons } from './persons';
import { parseRecord, processMessage } from './records';
import type { MessageEvents } from './store';
import { storeEvents } from './store';

export interface ConsumerTables {
  readonly eventsTable: string;
  readonly singleTable: string;
}

/** What a container remembers between batches: only facts that cannot become false. */
export interface ConsumerMemory {
  readonly seenToday: SeenTodayCache;
  readonly ingestedProjects: IngestedProjects;
  readonly propertyValues: PropertyValueSampler;
  readonly groupTypes: GroupTypeRegistry;
}

export function newConsumerMemory(): ConsumerMemory {
  return {
    seenToday: new SeenTodayCache(),
    ingestedProjects: new IngestedProjects(),
    propertyValues: new PropertyValueSampler(),
    groupTypes: new GroupTypeRegistry(),
  };
}

type Reason = Pick<IngestFailure, 'errorName' | 'errorMessage'>;

const stageReason = (stage: string): Reason => ({
  errorName: `${stage}Failed`,
  errorMessage: `The ${stage.toLowerCase()} stage could not write this message's items (after the SDK's and the writer's retries); see the consumer's log and the tables' metrics at that time.`,
});

async function storeOrFail(
  eventsTable: string,
  messages: readonly MessageEvents[],
  reasons: Map<string, Reason>,
): Promise<Set<string>> {
  try {
    return await storeEvents(eventsTable, messages);
  } catch (error) {
    logger.error('Storing the batch failed', { reason: String(error) });
    const reason = {
      errorName: error instanceof Error ? error.name : 'Error',
      errorMessage: error instanceof Error ? error.message : String(error),
    };
    for (const message of messages) reasons.set(message.messageId, reason);
    return new Set(messages.map((message) => message.messageId));
  }
}

/** One failure record per failed message (see db/failures.ts), so `dlq list` can say why. */
async function recordFailedAttempts(
  singleTable: string,
  records: readonly SQSRecord[],
  failed: ReadonlySet<string>,
  reasons: ReadonlyMap<string, Reason>,
  now: Date,
): Promise<void> {
  const failures = records
    .filter((record) => failed.has(record.messageId))
    .map((record) => ({
      messageId: record.messageId,
      // Lambda always sets it; a hand-built record may not.
      attempt:
        Number(
          (record.attributes as Partial<SQSRecord['attributes']> | undefined)?.ApproximateReceiveCount,
        ) || 1,
      ...(reasons.get(record.messageId) ?? stageReason('Ingest')),
      at: now.toISOString(),
    }));
  try {
    const unrecorded = await recordFailures(singleTable, failures);
    if (unrecorded.size > 0)
      logger.error('Some failed attempts could not be recorded', { messageIds: [...unrecorded] });
  } catch (error) {
    logger.error('Recording the failed attempts failed', { reason: String(error) });
  }
}

/**
 * One SQS batch → persons, stored events, definitions and volumes (reference §1.8), in that order,
 * each stage only for the messages every earlier stage handled. Every stage is replayable, so a
 * message that fails anywhere is simply reported for SQS to deliver again (after 5 receives it moves
 * to the DLQ); a record that can never be valid is logged and dropped.
 */
export async function ingestRecords(
  records: readonly SQSRecord[],
  tables: ConsumerTables,
  memory: ConsumerMemory,
  now: Date = new Date(),
): Promise<SQSBatchResponse> {
  const messages: MessageEvents[] = [];
  for (const record of records) {
    const message = parseRecord(record);
    if (message) messages.push(processMessage(record.messageId, message));
  }
  const reasons = new Map<string, Reason>();
  const failed = await processPersons(tables.singleTable, messages);
  for (const messageId of failed) reasons.set(messageId, stageReason('Persons'));
  const remaining = (): MessageEvents[] => messages.filter((message) => !failed.has(message.messageId));
  for (const messageId of await storeOrFail(tables.eventsTable, remaining(), reasons)) {
    if (!reasons.has(messageId)) reasons.set(messageId, stageReason('Store'));
    failed.add(messageId);
  }
  for (const messageId of await recordDefinitions(tables.singleTable, remaining(), now, memory.seenToday)) {
    if (!reasons.has(messageId)) reasons.set(messageId, stageReason('Definitions'));
    failed.add(messageId);
  }
  const ingested = remaining().filter((message) => message.events.length > 0);
  await memory.propertyValues.sample(tables.singleTable, ingested, now.getTime());
  await memory.groupTypes.register(tables.singleTable, ingested);
  await memory.ingestedProjects.markIngested(
    tables.singleTable,
    ingested.map((message) => message.projectId),
  );
  if (failed.size > 0) {
    logger.warn('Messages left for retry', { count: failed.size });
    await recordFailedAttempts(tables.singleTable, records, failed, reasons, now);
  }
  return { batchItemFailures: [...failed].map((itemIdentifier) => ({ itemIdentifier })) };
}
