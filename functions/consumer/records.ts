import type { SQSRecord } from 'aws-lambda';
import type { StoredEvent } from '../shared/domain/event';
import { processEvent } from '../shared/domain/process-event';
import { logger } from '../shared/logger';
import type { CaptureMessage } from '../shared/queue/message';
import { captureMessageSchema } from '../shared/queue/message';
import type { TransformedEvent } from './plugin-events';
import type { MessageEvents } from './types';

/** A capture message, with the id of the SQS message that carried it. */
export interface ParsedMessage {
  readonly messageId: string;
  readonly message: CaptureMessage;
}

/** A message's events as its project's plugins left them (plugins.ts). */
export interface TransformedMessage extends ParsedMessage {
  readonly transformed: readonly TransformedEvent[];
}

/** The batch's capture messages, and how many records can never be valid (logged and dropped). */
export function parseRecords(records: readonly SQSRecord[]): { parsed: ParsedMessage[]; invalid: number } {
  const parsed: ParsedMessage[] = [];
  for (const record of records) {
    const message = parseRecord(record);
    if (message) parsed.push({ messageId: record.messageId, message });
  }
  return { parsed, invalid: records.length - parsed.length };
}

/** A record that can never be valid: logged with its reason and dropped, not retried. */
function parseRecord(record: SQSRecord): CaptureMessage | undefined {
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
function processMessage({ messageId, message, transformed }: TransformedMessage): MessageEvents {
  const events: StoredEvent[] = [];
  for (const { captured, ip } of transformed) {
    try {
      // The consumer parsed these properties itself (or its plugins made them): nothing reads them again.
      events.push(processEvent({ ...message, ip }, captured, true));
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

/**
 * Every message's events normalised, and how many events could not be (dropped). Events the plugins
 * dropped are counted by the plugin stage, with their own reason.
 */
export function processMessages(messages: readonly TransformedMessage[]): {
  messages: MessageEvents[];
  unprocessable: number;
} {
  let unprocessable = 0;
  const processed = messages.map((message) => {
    const result = processMessage(message);
    unprocessable += message.transformed.length - result.events.length;
    return result;
  });
  return { messages: processed, unprocessable };
}
