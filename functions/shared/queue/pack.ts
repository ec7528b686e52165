import { captureLimits, messageLimits } from './definitions';
import type { CapturedEvent, CaptureMessage } from './message';
import { chunkBySize } from '../chunks';

export type MessageEnvelope = Omit<CaptureMessage, 'events'>;

export interface PackedMessages<E = CapturedEvent> {
  /** Message bodies, each within the size limit and `captureLimits.maxEventsPerMessage` events. */
  readonly bodies: string[];
  /** The UTF-8 size of each body, in the order of `bodies` (counted while packing, for `sendAll`). */
  readonly bodyBytes: number[];
  /** Events over `captureLimits.maxEventBytes` (or too big for a message with the envelope): not queued. */
  readonly tooLarge: { readonly event: E; readonly bytes: number }[];
}

/**
 * Characters a message body may not carry as they are. SQS accepts #x9, #xA, #xD, #x20–#xD7FF,
 * #xE000–#xFFFD and #x10000–#x10FFFF: JSON.stringify escapes control characters and lone
 * surrogates, but leaves the noncharacters U+FFFE and U+FFFF, which SQS refuses. Characters beyond
 * the BMP (surrogate pairs) are escaped too: SQS takes them, but the local emulator refuses them,
 * and an emoji in an event must not cost a 503 anywhere. Escaped, the JSON means the same.
 */
const refusedBySqs = /[\ud800-\udfff\ufffe\uffff]/g;

const unicodeEscape = (unit: string): string => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * `value` as JSON text with every character SQS could refuse written as its `\uXXXX` escape, and the
 * text's UTF-8 size. Text whose size equals its length is ASCII: nothing to escape, no second pass.
 */
export function sqsSafeJson(value: unknown): { readonly json: string; readonly bytes: number } {
  const json = JSON.stringify(value);
  return sqsSafeText({ json, bytes: Buffer.byteLength(json) });
}

/** JSON text of `bytes` UTF-8 bytes as `sqsSafeJson` leaves it, and its size then. */
export function sqsSafeText(text: { readonly json: string; readonly bytes: number }): {
  readonly json: string;
  readonly bytes: number;
} {
  const { json, bytes } = text;
  if (bytes === json.length) return text;
  const escaped = json.replace(refusedBySqs, unicodeEscape);
  return { json: escaped, bytes: Buffer.byteLength(escaped) };
}

/**
 * Packs a request's events (capture's, or the consumer's for the exports queue) into as few message
 * bodies `{...envelope, events: [...]}` as the limits allow, keeping their order. An event that no
 * message could hold is left out and returned in `tooLarge`, so it never costs the other events of
 * its request their place.
 */
export function packMessages<E = CapturedEvent>(
  envelope: object,
  events: readonly E[],
  maxBytes: number = messageLimits.maxMessageBytes,
): PackedMessages<E> {
  const envelopeJson = sqsSafeJson({ ...envelope, events: [] });
  const head = envelopeJson.json.slice(0, -3); // up to `"events":`
  const headBytes = envelopeJson.bytes;
  const maxEventBytes = Math.min(captureLimits.maxEventBytes, maxBytes - headBytes - 1);
  return (
    inOneMessage(head, headBytes, maxEventBytes, events) ??
    eventByEvent(head, headBytes, maxEventBytes, maxBytes, events)
  );
}

/**
 * The common request (a /batch/ of up to 100 small events) in one message, its events written by a
 * single JSON.stringify of the array (a quarter cheaper than one call per event, and no join). Taken
 * only when the array as a whole is within the per-event limit, so no event in it can be over that
 * limit and the body is within `maxBytes`: the very message `eventByEvent` would have built.
 * Undefined otherwise (then one of its events may be too large: they are sized one by one).
 */
function inOneMessage<E>(
  head: string,
  headBytes: number,
  maxEventBytes: number,
  events: readonly E[],
): PackedMessages<E> | undefined {
  if (events.length === 0 || events.length > captureLimits.maxEventsPerMessage) return undefined;
  const { json, bytes } = sqsSafeJson(events);
  if (bytes > maxEventBytes) return undefined;
  // `head` + `[…]` + `}`: headBytes counted the `[]}` of the empty array.
  return { bodies: [`${head}${json}}`], bodyBytes: [headBytes - 2 + bytes], tooLarge: [] };
}

/** Events sized and packed one by one, in order; those over `maxEventBytes` are left out. */
function eventByEvent<E>(
  head: string,
  headBytes: number,
  maxEventBytes: number,
  maxBytes: number,
  events: readonly E[],
): PackedMessages<E> {
  const bodies: string[] = [];
  const bodyBytes: number[] = [];
  const tooLarge: PackedMessages<E>['tooLarge'] = [];
  let current: string[] = [];
  let currentBytes = headBytes;
  const flush = (): void => {
    if (current.length > 0) {
      bodies.push(`${head}[${current.join(',')}]}`);
      bodyBytes.push(currentBytes - 1); // one comma fewer than events
    }
    current = [];
    currentBytes = headBytes;
  };
  for (const event of events) {
    const { json, bytes } = sqsSafeJson(event);
    if (bytes > maxEventBytes) {
      tooLarge.push({ event, bytes });
      continue;
    }
    if (current.length === captureLimits.maxEventsPerMessage || currentBytes + bytes + 1 > maxBytes) flush();
    current.push(json);
    currentBytes += bytes + 1;
  }
  flush();
  return { bodies, bodyBytes, tooLarge };
}

/**
 * Groups message bodies into SendMessageBatch calls: at most 10 entries and 1 MiB per call.
 * `bodyBytes`: their UTF-8 sizes where the packing counted them, else they are counted here.
 */
export function groupIntoBatches(
  bodies: readonly string[],
  bodyBytes: readonly number[] = bodies.map((body) => Buffer.byteLength(body)),
): string[][] {
  const indexes = chunkBySize(
    bodies.map((_, index) => index),
    (index) => bodyBytes[index]!,
    messageLimits.maxBatchBytes,
    messageLimits.maxBatchEntries,
  );
  return indexes.map((batch) => batch.map((index) => bodies[index]!));
}
