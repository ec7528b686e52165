import type { CapturedEvent, CaptureMessage } from '../queue/message';
import type { StoredEvent } from './event';
import { eventTimestamp } from './timestamps';

/**
 * A captured event → the event Flock stores (reference §1.8): pure, no I/O.
 * Person processing and definitions happen around it, per batch.
 */

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const maxEventNameLength = 200;

/** Event names are strings of at most 200 characters (PostHog's `sanitizeEventName`). */
export function sanitizeEventName(name: unknown): string {
  const text = typeof name === 'string' ? name : JSON.stringify(name);
  return [...text].slice(0, maxEventNameLength).join('');
}

/** Top-level `$set`/`$set_once` (posthog-js `$identify`) merged into properties; top-level keys win. */
function mergeTopLevelSets(data: JsonObject, properties: JsonObject): JsonObject {
  const merged = { ...properties };
  for (const key of ['$set', '$set_once'] as const) {
    if (isObject(data[key])) merged[key] = { ...(isObject(properties[key]) ? properties[key] : {}), ...data[key] };
  }
  return merged;
}

export function processEvent(message: CaptureMessage, captured: CapturedEvent): StoredEvent {
  const { data } = captured;
  const properties = mergeTopLevelSets(data, isObject(data.properties) ? data.properties : {});
  if (message.ip !== null && properties.$ip === undefined) properties.$ip = message.ip;
  const now = new Date(message.now);
  return {
    uuid: captured.uuid,
    projectId: message.project_id,
    event: sanitizeEventName(data.event),
    distinctId: captured.distinct_id,
    properties,
    timestamp: eventTimestamp(data, now, message.sent_at).toISOString(),
    elementsChain: typeof properties.$elements_chain === 'string' ? properties.$elements_chain : '',
    createdAt: message.now,
  };
}
