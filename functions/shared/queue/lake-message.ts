import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import * as z from 'zod';
import type { StoredEvent } from '../domain/event';
import { propertiesTextOf } from '../domain/event';
import type { LakeEvent } from '../lake/row';
import { captureLimits, messageLimits } from './definitions';
import { sqsSafeJson, sqsSafeText } from './pack';

/**
 * What the consumer puts on the lake queue once it stored a message's events: those events, as the
 * plugins left them, for the lake function (functions/lake). `source` is the ingest message they were
 * stored from: a redelivery of that message carries the same source, so the lake writer knows its
 * events as claimed by it (functions/shared/db/lake-claims.ts).
 *
 * Version 2 (what `packLakeMessages` writes) lists each distinct person properties object of the
 * message once, in `persons`, and each event names its entry by index (`person`): a person's events
 * of one flush share the properties, which version 1 repeated in every event (`person_properties`).
 * Both parse to the same `LakeMessage`, so version 1 messages still in the queue (or redriven from
 * its DLQ) read as before.
 */
const lakeEventFields = {
  uuid: z.string().min(1),
  event: z.string(),
  distinct_id: z.string(),
  timestamp: z.iso.datetime({ offset: true }),
  created_at: z.iso.datetime({ offset: true }),
  properties: z.record(z.string(), z.unknown()),
  elements_chain: z.string(),
  person_id: z.string().nullable().optional(),
};

const personProperties = z.record(z.string(), z.unknown());

const lakeMessageV1Schema = z.object({
  v: z.literal(1),
  project_id: z.number().int().positive(),
  source: z.string().min(1).max(200),
  events: z
    .array(z.object({ ...lakeEventFields, person_properties: personProperties.nullable().optional() }))
    .min(1),
});

const lakeMessageV2Schema = z
  .object({
    v: z.literal(2),
    project_id: z.number().int().positive(),
    source: z.string().min(1).max(200),
    persons: z.array(personProperties),
    events: z
      .array(z.object({ ...lakeEventFields, person: z.number().int().nonnegative().optional() }))
      .min(1),
  })
  .refine(
    (message) =>
      message.events.every((event) => event.person === undefined || event.person < message.persons.length),
    { message: 'An event names a person properties entry the message does not have', path: ['events'] },
  )
  .transform(({ v, project_id, source, persons, events }) => ({
    v,
    project_id,
    source,
    events: events.map(({ person, ...event }) => ({
      ...event,
      person_properties: person === undefined ? null : persons[person]!,
    })),
  }));

/** A lake queue message of either version, as the lake writer reads it (version 2's persons resolved). */
export interface LakeMessage {
  readonly v: 1 | 2;
  readonly project_id: number;
  readonly source: string;
  readonly events: readonly LakeEvent[];
}

export const lakeMessageSchema: z.ZodType<LakeMessage> = z.union([lakeMessageV1Schema, lakeMessageV2Schema]);

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
 * A lake queue body's JSON text, inflated if it was deflated; undefined when it is not valid deflated
 * data. Inflating stops past one message's limit: only `lakeBody` writes these bodies, and it never
 * deflates more than that.
 */
export function lakeBodyJson(body: string): string | undefined {
  if (!body.startsWith(deflatedPrefix)) return body;
  try {
    return inflateRawSync(Buffer.from(body.slice(deflatedPrefix.length), 'base64'), {
      maxOutputLength: messageLimits.maxMessageBytes,
    }).toString('utf8');
  } catch {
    return undefined;
  }
}

/** A lake queue body's JSON value, deflated or not; undefined when it is neither valid deflated data nor JSON. */
export function parseLakeBody(body: string): unknown {
  const json = lakeBodyJson(body);
  return json === undefined ? undefined : parseLakeJson(json);
}

/** The value of a lake body's JSON text (`lakeBodyJson`); undefined when it is not JSON. */
export function parseLakeJson(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/** An event's JSON text without its person, SQS-safe, and its UTF-8 size. */
interface EventText {
  readonly event: LakeEvent;
  readonly json: string;
  readonly bytes: number;
}

/** `,"person":n` closing an event's object; `}` when it has none. */
const personRef = (index: number | undefined): string => (index === undefined ? '}' : `,"person":${index}}`);

/**
 * The event's JSON object, open at its end (`personRef` closes it). Its properties are the text the
 * store wrote (`propertiesTextOf`); only the small fields are written here.
 */
function eventText(event: LakeEvent): EventText {
  const fields = sqsSafeJson({
    uuid: event.uuid,
    event: event.event,
    distinct_id: event.distinct_id,
    timestamp: event.timestamp,
    created_at: event.created_at,
    elements_chain: event.elements_chain,
    person_id: event.person_id ?? null,
  });
  const properties = sqsSafeText(propertiesTextOf(event));
  return {
    event,
    json: `${fields.json.slice(0, -1)},"properties":${properties.json}`,
    bytes: fields.bytes - 1 + 14 + properties.bytes,
  };
}

/** A body being filled: its persons' entries by object, and the events' texts. */
interface OpenBody {
  readonly persons: Map<object, number>;
  readonly personTexts: string[];
  readonly eventTexts: string[];
  bytes: number;
}

/**
 * Message bodies for the lake queue (version 2, above), each within SQS's 256 KiB and
 * `captureLimits.maxEventsPerMessage` events, then deflated when that is shorter. Each body lists
 * the person properties its events carry once, so a person's events of one flush cost its properties
 * once: a person at the 160 KiB cap with 10,000 events in a batch would otherwise be written (and
 * deflated) 10,000 times. An event that no message could hold with its person's properties (up to
 * 160 KiB of them, besides its own) goes without them (`person_properties` null, `person_id` kept);
 * `withoutPersonProperties` counts those. `tooLarge` counts the events no message could hold even so
 * (an event that grew past 240 KiB in the plugins): they are not handed over.
 */
export function packLakeMessages(
  projectId: number,
  source: string,
  events: readonly LakeEvent[],
): { bodies: string[]; bodyBytes: number[]; tooLarge: number; withoutPersonProperties: number } {
  const maxBytes = messageLimits.maxMessageBytes;
  const head = sqsSafeJson({ v: 2, project_id: projectId, source });
  const opening = `${head.json.slice(0, -1)},"persons":[`;
  // `{…,"persons":[` + `],"events":[` + `]}`: 12 and 2 characters around the lists.
  const emptyBytes = head.bytes - 1 + 12 + 12 + 2;
  const maxEventBytes = Math.min(captureLimits.maxEventBytes, maxBytes - emptyBytes);
  const personTexts = new Map<object, { readonly json: string; readonly bytes: number }>();
  const personText = (properties: object) => {
    let text = personTexts.get(properties);
    if (!text) personTexts.set(properties, (text = sqsSafeJson(properties)));
    return text;
  };
  const texts: string[] = [];
  const bodyBytes: number[] = [];
  let tooLarge = 0;
  let withoutPersonProperties = 0;
  const open = (): OpenBody => ({ persons: new Map(), personTexts: [], eventTexts: [], bytes: emptyBytes });
  let body = open();
  const close = (): void => {
    if (body.eventTexts.length === 0) return;
    texts.push(`${opening}${body.personTexts.join(',')}],"events":[${body.eventTexts.join(',')}]}`);
    bodyBytes.push(body.bytes);
    body = open();
  };
  // What adding the event (and its person, if the body lacks it) adds to a body's size.
  const added = (into: OpenBody, text: EventText, person: object | undefined): number => {
    const comma = into.eventTexts.length > 0 ? 1 : 0;
    if (person === undefined) return text.bytes + 1 + comma;
    const index = into.persons.get(person);
    if (index !== undefined) return text.bytes + personRef(index).length + comma;
    const personComma = into.personTexts.length > 0 ? 1 : 0;
    const ref = personRef(into.personTexts.length).length;
    return text.bytes + ref + comma + personText(person).bytes + personComma;
  };
  // Whether an event with this person fits a body of its own.
  const fitsAlone = (text: EventText, person: object): boolean =>
    emptyBytes + text.bytes + personRef(0).length + personText(person).bytes <= maxBytes;
  for (const event of events) {
    const text = eventText(event);
    if (text.bytes + 1 > maxEventBytes) {
      tooLarge++;
      continue;
    }
    let person: object | undefined = event.person_properties ?? undefined;
    if (person !== undefined && !fitsAlone(text, person)) {
      person = undefined;
      withoutPersonProperties++;
    }
    if (
      body.eventTexts.length === captureLimits.maxEventsPerMessage ||
      body.bytes + added(body, text, person) > maxBytes
    )
      close();
    body.bytes += added(body, text, person);
    let index: number | undefined;
    if (person !== undefined) {
      index = body.persons.get(person);
      if (index === undefined) {
        index = body.personTexts.length;
        body.persons.set(person, index);
        body.personTexts.push(personText(person).json);
      }
    }
    body.eventTexts.push(`${text.json}${personRef(index)}`);
  }
  close();
  const bodies = texts.map((json, index) => lakeBody(json, bodyBytes[index]!));
  return {
    bodies: bodies.map((one) => one.body),
    bodyBytes: bodies.map((one) => one.bytes),
    tooLarge,
    withoutPersonProperties,
  };
}
