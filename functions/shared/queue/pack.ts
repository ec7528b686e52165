import { captureLimits, messageLimits } from './definitions';
import type { CapturedEvent, CaptureMessage } from './message';
import { chunkBySize } from '../chunks';

export type MessageEnvelope = Omit<CaptureMessage, 'events'>;

export interface PackedMessages<E = CapturedEvent> {
  /** Message bodies, each within the size limit and `captureLimits.maxEventsPerMessage` events. */
  readonly bodies: string[];
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

/** JSON text with every character SQS could refuse written as its `\uXXXX` escape. */
function sqsSafeJson(json: string): string {
  return json.replace(refusedBySqs, unicodeEscape);
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
  const head = sqsSafeJson(JSON.stringify({ ...envelope, events: [] })).slice(0, -3); // up to `"events":`
  const headBytes = Buffer.byteLength(head) + 3;
  const maxEventBytes = Math.min(captureLimits.maxEventBytes, maxBytes - headBytes - 1);
  const bodies: string[] = [];
  const tooLarge: PackedMessages<E>['tooLarge'] = [];
  let current: string[] = [];
  let currentBytes = headBytes;
  const flush = (): void => {
    if (current.length > 0) bodies.push(`${head}[${current.join(',')}]}`);
    current = [];
    currentBytes = headBytes;
  };
  for (const event of events) {
    const json = sqsSafeJson(JSON.stringify(event));
    const bytes = Buffer.byteLength(json);
    if (bytes > maxEventBytes) {
      tooLarge.push({ event, bytes });
      continue;
    }
    if (current.length === captureLimits.maxEventsPerMessage || currentBytes + bytes + 1 > maxBytes) flush();
    current.push(json);
    currentBytes += bytes + 1;
  }
  flush();
  return { bodies, tooLarge };
}

/** Groups message bodies into SendMessageBatch calls: at most 10 entries and 1 MiB per call. */
export function groupIntoBatches(bodies: readonly string[]): string[][] {
  return chunkBySize(
    bodies,
    (body) => Buffer.byteLength(body),
    messageLimits.maxBatchBytes,
    messageLimits.maxBatchEntries,
  );
}
