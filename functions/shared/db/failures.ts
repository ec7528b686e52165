import { deadLetterQueue } from '../queue/definitions';
import { batchPutAll, queryAll } from './operations';

/**
 * Why the consumer failed an ingest message: one item per (SQS message id, attempt), written when an
 * attempt fails, so an operator reading the DLQ (`npm run flock -- dlq list`) sees the reason next to
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
