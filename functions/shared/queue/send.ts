import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { backoff } from '../backoff';
import { logger } from '../logger';
import { countMetric, metricNames } from '../metrics';
import { sqsClient } from './client';
import { groupIntoBatches } from './pack';

const maxAttempts = 3;
/**
 * The wait before the first retry, and the most any one wait lasts (before jitter): with three
 * attempts a send that fails for good waits at most (25 + 50) × 1.5 ≈ 113 ms in all, which a
 * capture request can afford before it answers 503.
 */
const firstRetryMs = 25;
const maxRetryWaitMs = 100;

/**
 * Sends message bodies with SendMessageBatch, retrying the entries the queue refused (or the whole
 * call, when it failed) with exponential backoff and jitter, at most `maxAttempts` calls per batch.
 * Returns false if any body could not be queued (the caller answers 503 so the SDK retries).
 * `bodyBytes`: the bodies' UTF-8 sizes, where `packMessages` counted them already. `delaySeconds`:
 * how long each message stays invisible after it is sent (SQS's DelaySeconds, at most 900).
 */
export async function sendAll(
  queueUrl: string,
  bodies: readonly string[],
  bodyBytes?: readonly number[],
  delaySeconds = 0,
): Promise<boolean> {
  const batches = groupIntoBatches(bodies, bodyBytes);
  const results = await Promise.all(batches.map((batch) => sendBatch(queueUrl, batch, delaySeconds)));
  return results.every(Boolean);
}

async function sendBatch(
  queueUrl: string,
  bodies: readonly string[],
  delaySeconds: number,
): Promise<boolean> {
  let pending = bodies.map((body, index) => ({
    Id: String(index),
    MessageBody: body,
    ...(delaySeconds > 0 ? { DelaySeconds: delaySeconds } : {}),
  }));
  // What SQS said of the last attempt: the codes of refused entries, or the error of the call.
  let lastFailure: { codes?: string[]; error?: Error } = {};
  for (let attempt = 0; attempt < maxAttempts && pending.length > 0; attempt++) {
    if (attempt > 0) await backoff(attempt, firstRetryMs, maxRetryWaitMs);
    try {
      const result = await sqsClient.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: pending }),
      );
      const failures = result.Failed ?? [];
      const failed = new Set(failures.map((failure) => failure.Id));
      pending = pending.filter((entry) => failed.has(entry.Id));
      lastFailure = { codes: failures.map((failure) => failure.Code ?? 'unknown') };
    } catch (error) {
      // Whole call failed (the SDK already retried transient faults); try the remaining entries again.
      lastFailure = { error: error as Error };
    }
  }
  countMetric(metricNames.queueSendFailures, pending.length);
  if (pending.length > 0)
    logger.error('Events not queued: SQS refused them after every attempt (the client gets a 503)', {
      messages: pending.length,
      attempts: maxAttempts,
      ...(lastFailure.codes ? { codes: [...new Set(lastFailure.codes)] } : {}),
      ...(lastFailure.error ? { error: lastFailure.error } : {}),
    });
  return pending.length === 0;
}
