import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from './client';
import { groupIntoBatches } from './pack';

const maxAttempts = 3;

/**
 * Sends message bodies with SendMessageBatch, retrying entries the queue refused.
 * Returns false if any body could not be queued (the caller answers 503 so the SDK retries).
 */
export async function sendAll(queueUrl: string, bodies: readonly string[]): Promise<boolean> {
  const results = await Promise.all(groupIntoBatches(bodies).map((batch) => sendBatch(queueUrl, batch)));
  return results.every(Boolean);
}

async function sendBatch(queueUrl: string, bodies: readonly string[]): Promise<boolean> {
  let pending = bodies.map((body, index) => ({ Id: String(index), MessageBody: body }));
  for (let attempt = 0; attempt < maxAttempts && pending.length > 0; attempt++) {
    try {
      const result = await sqsClient.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }),
      );
      const failed = new Set((result.Failed ?? []).map((failure) => failure.Id));
      pending = pending.filter((entry) => failed.has(entry.Id));
    } catch {
      // Whole call failed (the SDK already retried transient faults); try the remaining entries again.
    }
  }
  return pending.length === 0;
}
