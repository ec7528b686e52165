import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import * as z from 'zod';
import type { StoredEvent } from '../domain/event';
import type { LakeEvent } from '../lake/row';
import { messageLimits } from './definitions';
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

/**
 * A stored event as the lake receives it, with the person the persons stage resolved it to and that
 * person's properties right after it (none for an event that does not process a person).
 */
export function toLakeEvent(
  event: StoredEvent,
  person?: { readonly personId: string; readonly properties: Record<string, unknown> },
): LakeEvent {
  return {
    uuid: event.uuid,
    event: event.event,
    distinct_id: event.distinctId,
    timestamp: event.timestamp,
    created_at: event.createdAt,
    properties: event.properties,
    elements_chain: event.elementsChain,
    person_id: person?.personId ?? null,
    person_properties: person?.properties ?? null,
  };
}

/**
 * The prefix of a deflated body. SQS bills each 64 KiB of a request's payload as one request, and a
 * message of JSON events deflates several times over, so the lake hand-off sends its bodies deflated
 * (raw DEFLATE, base64) whenever that is shorter.
 */
const deflatedPrefix = 'deflate:';

/** `json` (of `bytes` UTF-8 bytes) as the body the lake queue carries: deflated when that is shorter. */
function lakeBody(json: string, bytes: number): { body: string; bytes: number } {
  const deflated =
    deflatedPrefix + deflateRawSync(json, { level: constants.Z_BEST_SPEED }).toString('base64');
  return deflated.length < bytes ? { body: deflated, bytes: deflated.length } : { body: json, bytes };
}

/**
 * A lake queue body's JSON value, deflated or not; undefined when it is neither valid deflated data
 * nor JSON. Inflating stops past one message's limit: only `lakeBody` writes these bodies, and it
 * never deflates more than that.
 */
export function parseLakeBody(body: string): unknown {
  try {
    const json = body.startsWith(deflatedPrefix)
      ? inflateRawSync(Buffer.from(body.slice(deflatedPrefix.length), 'base64'), {
          maxOutputLength: messageLimits.maxMessageBytes,
        }).toString('utf8')
      : body;
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Message bodies for the lake queue, each within SQS's 256 KiB (split as capture splits, then
 * deflated when that is shorter). An event that no message could hold with its person's properties
 * (up to 160 KiB of them, besides its own) goes without them (`person_properties` null, `person_id`
 * kept); `withoutPersonProperties` counts those. `tooLarge` counts the events no message could hold
 * even so (an event that grew past 240 KiB in the plugins): they are not handed over.
 */
export function packLakeMessages(
  projectId: number,
  source: string,
  events: readonly LakeEvent[],
): { bodies: string[]; bodyBytes: number[]; tooLarge: number; withoutPersonProperties: number } {
  const envelope = { v: 1, project_id: projectId, source };
  const packed = packMessages(envelope, events);
  const stripped = packed.tooLarge
    .filter(({ event }) => event.person_properties)
    .map(({ event }) => ({ ...event, person_properties: null }));
  const again = packMessages(envelope, stripped);
  const bodies = [...packed.bodies, ...again.bodies].map((json, index) =>
    lakeBody(json, [...packed.bodyBytes, ...again.bodyBytes][index]!),
  );
  return {
    bodies: bodies.map((body) => body.body),
    bodyBytes: bodies.map((body) => body.bytes),
    tooLarge: packed.tooLarge.length - stripped.length + again.tooLarge.length,
    withoutPersonProperties: stripped.length - again.tooLarge.length,
  };
}
