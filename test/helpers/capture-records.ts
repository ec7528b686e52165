import type { SQSRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import type { CaptureMessage } from '../../functions/shared/queue/message';

export interface TestEvent {
  readonly event: string;
  readonly distinctId: string;
  readonly properties?: object;
  readonly uuid?: string;
}

/** An ingest queue record as capture packs it: one request's events of one project, at a fixed time. */
export function captureRecord(projectId: number, messageId: string, events: readonly TestEvent[]): SQSRecord {
  const message: CaptureMessage = {
    v: 1,
    project_id: projectId,
    now: '2024-03-01T12:00:01.000Z',
    sent_at: null,
    ip: '203.0.113.9',
    site_url: 'https://example.com',
    events: events.map(({ event, distinctId, properties = {}, uuid = randomUUID() }) => ({
      uuid,
      distinct_id: distinctId,
      data: { event, distinct_id: distinctId, timestamp: '2024-03-01T12:00:00.000Z', properties },
    })),
  };
  return { messageId, body: JSON.stringify(message) } as SQSRecord;
}
