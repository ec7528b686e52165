import * as z from 'zod';
import type { StoredEvent } from '../domain/event';
import type { LakeEvent } from '../lake/row';
import { packMessages } from './pack';

/**
 * What the consumer puts on the lake queue once it stored a message's events: those events, as the
 * plugins left them, for the lake function (functions/lake). `source` is the ingest message they were
 * stored from: a redelivery of that message carries the same source, so the lake writer knows its
 * events as claimed by it (functions/shared/db/lake-claims.ts).
 */
const lakeEventSchema = z.object({
  uuid: z.string().min(1),
  event: z.string(),
  distinct_id: z.string(),
  timestamp: z.iso.datetime({ offset: true }),
  created_at: z.iso.datetime({ offset: true }),
  properties: z.record(z.string(), z.unknown()),
  elements_chain: z.string(),
  person_id: z.string().nullable().optional(),
  person_properties: z.record(z.string(), z.unknown()).nullable().optional(),
});

export const lakeMessageSchema = z.object({
  v: z.literal(1),
  project_id: z.number().int().positive(),
  source: z.string().min(1).max(200),
  events: z.array(lakeEventSchema).min(1),
});

export type LakeMessage = z.infer<typeof lakeMessageSchema>;

/** A stored event as the lake receives it. */
export function toLakeEvent(event: StoredEvent): LakeEvent {
  return {
    uuid: event.uuid,
    event: event.event,
    distinct_id: event.distinctId,
    timestamp: event.timestamp,
    created_at: event.createdAt,
    properties: event.properties,
    elements_chain: event.elementsChain,
  };
}

/**
 * Message bodies for the lake queue, each within SQS's 256 KiB (split as capture splits), and the
 * number of events no message could hold (an event that grew past 240 KiB in the plugins).
 */
export function packLakeMessages(
  projectId: number,
  source: string,
  events: readonly LakeEvent[],
): { bodies: string[]; bodyBytes: number[]; tooLarge: number } {
  const { bodies, bodyBytes, tooLarge } = packMessages({ v: 1, project_id: projectId, source }, events);
  return { bodies, bodyBytes, tooLarge: tooLarge.length };
}
