import type { SQSRecord } from 'aws-lambda';
import { createHash } from 'node:crypto';
import type { EventSource } from '../shared/db/events';
import { eventRefKey } from '../shared/db/events';
import type { MessageEvents } from './types';

/**
 * Which events an ingest message writes and hands to the lake (docs/lake.md, "Exactly once").
 *
 * Each message is known by its **source**: 8 bytes of the SHA-256 of its body, base64url (11
 * characters). A redelivery keeps its body, and so does a message redriven from the DLQ by sending
 * it again (a new SQS message id); two messages with the same body carry the same events and are one
 * source. The store stage writes it into every event item (`src`), and the hand-off names it.
 *
 * Before storing, the consumer reads its events' items (strongly consistent, beside persons):
 *
 * - not stored, or stored without a source (written before sources were kept): written and handed
 *   over under this message's source;
 * - stored by this source (a redelivery of this message): written and handed over again (the lake
 *   writer's claim per source keeps it once, db/lake-claims.ts);
 * - stored by another source (an SDK retry or a beacon after the first copy was stored): neither
 *   written nor handed over. That source handed it over, and the item keeps its content, so the API
 *   and the lake hold the same copy.
 *
 * Two copies in flight at once may both read "not stored" and both write and hand over: the last
 * write wins the item, and the lake writer keeps only the hand-off whose source the item names once
 * every write that raced it has landed (functions/lake/settle.ts).
 */

/** Bytes of a source: a collision between two messages carrying the same uuid is a 2^-64 chance. */
const sourceBytes = 8;

/** An ingest message's source: the digest of its body. */
export const eventSourceOf = (body: string): string =>
  createHash('sha256').update(body).digest().subarray(0, sourceBytes).toString('base64url');

/** Each record's source, by message id. */
export const sourcesOf = (records: readonly Pick<SQSRecord, 'messageId' | 'body'>[]): Map<string, string> =>
  new Map(records.map((record) => [record.messageId, eventSourceOf(record.body)]));

/**
 * The events of each message that it writes and hands over (see the module's comment), given what
 * the read before the write found (`stored`, by `eventRefKey`) and each message's source.
 */
export function ownEvents<T extends MessageEvents>(
  messages: readonly T[],
  stored: ReadonlyMap<string, EventSource>,
  sources: ReadonlyMap<string, string>,
): T[] {
  return messages.map((message) => {
    const source = sources.get(message.messageId);
    const events = message.events.filter((event) => {
      const found = stored.get(eventRefKey(event))?.src;
      return found === undefined || found === source;
    });
    return events.length === message.events.length ? message : { ...message, events };
  });
}
