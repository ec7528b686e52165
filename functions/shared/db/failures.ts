import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { deadLetterQueue } from '../queue/definitions';
import { documentClient } from './client';
import { queryAll } from './items';

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

/** Writes the records (25 per call); a record that cannot be written is not worth failing a batch for. */
export async function recordFailures(tableName: string, failures: readonly IngestFailure[]): Promise<void> {
  const expires = Math.floor(Date.now() / 1000) + failureRetentionSeconds;
  for (let start = 0; start < failures.length; start += 25) {
    const chunk = failures.slice(start, start + 25);
    await documentClient.send(
      new BatchWriteCommand({
        RequestItems: {
          [tableName]: chunk.map((failure) => ({
            PutRequest: {
              Item: { PK: partition(failure.messageId), SK: sortKey(failure.attempt), ...failure, expires },
            },
          })),
        },
      }),
    );
  }
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
