import type { SQSRecord } from 'aws-lambda';
import { logger } from '../logger';
import { deadLetterQueue } from '../queue/definitions';
import { receiveCountOf } from '../queue/receive-count';
import { batchPutAll, queryAll } from './operations';

/**
 * Why the consumer failed an ingest message, or the exports function an exports message: one item
 * per (SQS message id, attempt), written when an attempt fails, so an operator reading the DLQ (`npm run flock -- dlq list`) sees the reason next to
 * the message. DynamoDB's TTL removes them once the DLQ itself would have dropped the message.
 * Keys live here, not in keys.ts: nothing else reads them.
 */
export interface IngestFailure {
  readonly messageId: string;
  /** The message's receive count when the attempt failed (1 = first delivery). */
  readonly attempt: number;
  readonly errorName: string;
  readonly errorMessage: string;
  /** ISO 8601. */
  readonly at: string;
}

const partition = (messageId: string): string => `FAIL#${messageId}`;
const sortKey = (attempt: number): string => `ATTEMPT#${String(attempt).padStart(4, '0')}`;
export const failureRetentionSeconds = deadLetterQueue.retentionDays * 24 * 60 * 60;

/**
 * Writes the records; returns the message ids whose record could not be stored (logged by the
 * caller: a record is not worth failing a batch for).
 */
export async function recordFailures(
  tableName: string,
  failures: readonly IngestFailure[],
): Promise<Set<string>> {
  const expires = Math.floor(Date.now() / 1000) + failureRetentionSeconds;
  const failed = await batchPutAll(
    tableName,
    failures.map((failure) => ({
      item: { PK: partition(failure.messageId), SK: sortKey(failure.attempt), ...failure, expires },
      tag: failure.messageId,
    })),
  );
  return new Set(failed.keys());
}

/** Every recorded failed attempt of one message, oldest attempt first. */
export async function readFailures(tableName: string, messageId: string): Promise<IngestFailure[]> {
  const items = await queryAll({
    TableName: tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': partition(messageId) },
  });
  return items.map((item) => ({
    messageId: String(item.messageId),
    attempt: Number(item.attempt),
    errorName: String(item.errorName),
    errorMessage: String(item.errorMessage),
    at: String(item.at),
  }));
}

/**
 * One failure record per failed message of a batch, with the error that stopped it, so `dlq list`
 * can say why. A record is not worth failing the batch for: what cannot be written is logged.
 */
export async function recordFailedAttempts(
  tableName: string,
  records: readonly SQSRecord[],
  failed: ReadonlyMap<string, Error>,
  now: Date,
): Promise<void> {
  const failures = records.flatMap((record) => {
    const error = failed.get(record.messageId);
    if (!error) return [];
    return [
      {
        messageId: record.messageId,
        attempt: receiveCountOf(record),
        errorName: error.name,
        errorMessage: error.message,
        at: now.toISOString(),
      },
    ];
  });
  if (failures.length === 0) return;
  try {
    const unrecorded = await recordFailures(tableName, failures);
    if (unrecorded.size > 0)
      logger.error('Some failed attempts could not be recorded', { messageIds: [...unrecorded] });
  } catch (error) {
    logger.error('Recording the failed attempts failed', { reason: String(error) });
  }
}
