import type { SQSRecord } from 'aws-lambda';
import type { StoredEvent } from '../shared/domain/event';
import { processEvent } from '../shared/domain/process-event';
import { logger } from '../shared/logger';
import type { CaptureMessage } from '../shared/queue/message';
import { captureMessageSchema } from '../shared/queue/message';
import type { TransformedEvent } from './plugin-events';
import type { MessageEvents } from './store';

/** A record that can never be valid: logged with its reason and dropped, not retried. */
export function parseRecord(record: SQSRecord): CaptureMessage | undefined {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch (error) {
    logger.error('Dropping a message that is not JSON', {
      messageId: record.messageId,
      reason: String(error),
    });
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

/**
 * A message's events (as its plugins left them, with the IP each is to be stored with), normalised;
 * an event that cannot be processed is logged and dropped.
 */
export function processMessage(
  messageId: string,
  message: CaptureMessage,
  transformed: readonly TransformedEvent[],
): MessageEvents {
  const events: StoredEvent[] = [];
  for (const { captured, ip } of transformed) {
    try {
      events.push(processEvent({ ...message, ip }, captured));
    } catch (error) {
      logger.error('Dropping an event that cannot be processed', {
        messageId,
        uuid: captured.uuid,
        reason: String(error),
      });
    }
  }
  return { messageId, projectId: message.project_id, events };
}
