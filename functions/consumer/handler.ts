import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { envNames, eventsTableEnv, loadConfig, singleTableEnv } from '../shared/config';
import type { StoredEvent } from '../shared/domain/event';
import { processEvent } from '../shared/domain/process-event';
import { logger } from '../shared/logger';
import type { CaptureMessage } from '../shared/queue/message';
import { captureMessageSchema } from '../shared/queue/message';
import type { MessageEvents } from './store';
import { storeEvents } from './store';

const config = loadConfig(eventsTableEnv.and(singleTableEnv));
const eventsTable = config[envNames.eventsTable];

/** A message that can never be valid: logged with its reason and dropped, not retried. */
function parseRecord(record: SQSRecord): CaptureMessage | undefined {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch (error) {
    logger.error('Dropping a message that is not JSON', { messageId: record.messageId, reason: String(error) });
    return undefined;
  }
  const parsed = captureMessageSchema.safeParse(body);
  if (!parsed.success) {
    logger.error('Dropping a message that is not a capture message', {
      messageId: record.messageId,
      reason: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
    });
    return undefined;
  }
  return parsed.data;
}

function processMessage(messageId: string, message: CaptureMessage): MessageEvents {
  const events: StoredEvent[] = [];
  for (const captured of message.events) {
    try {
      events.push(processEvent(message, captured));
    } catch (error) {
      logger.error('Dropping an event that cannot be processed', { messageId, uuid: captured.uuid, reason: String(error) });
    }
  }
  return { messageId, projectId: message.project_id, events };
}

/**
 * The ingest consumer: SQS batch → stored events. Idempotent (event items are keyed by uuid and
 * index pages by message id), so a redelivered message ends in the same state. A message whose
 * items could not be stored is reported as a batch item failure: SQS retries it and, after 5
 * receives, moves it to the DLQ.
 */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const messages: MessageEvents[] = [];
  for (const record of event.Records) {
    const message = parseRecord(record);
    if (message) messages.push(processMessage(record.messageId, message));
  }
  let failed: Set<string>;
  try {
    failed = await storeEvents(eventsTable, messages);
  } catch (error) {
    logger.error('Storing the batch failed', { reason: String(error) });
    failed = new Set(messages.map((message) => message.messageId));
  }
  if (failed.size > 0) logger.warn('Messages left for retry', { count: failed.size });
  const batchItemFailures: SQSBatchItemFailure[] = [...failed].map((itemIdentifier) => ({ itemIdentifier }));
  return { batchItemFailures };
}
