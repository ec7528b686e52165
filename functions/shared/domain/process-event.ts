import { takeElementsChain } from './elements';
import type { StoredEvent } from './event';
import {
  isObject,
  mergeTopLevelSets,
  mergeTopLevelSetsInto,
  processesPerson,
  withInitialAndUtmProperties,
} from './properties';
import { eventTimestamp } from './timestamps';

/**
 * A captured event → the event Flock stores (plugin-server `process-event.ts`), pure, no I/O. Persons
 * (step 11), definitions (step 8) and the project's first event (step 9) are handled around it, per
 * batch, by the consumer.
 */

/** The request an event came in (capture's envelope): the project, when, and from where. */
export interface CaptureRequest {
  readonly project_id: number;
  /** When capture received the request (ISO 8601): the reference for clock-skew correction. */
  readonly now: string;
  readonly sent_at: string | null;
  /** The IP the event is stored with, or null (an anonymizing project, or a plugin removed it). */
  readonly ip: string | null;
}

/** One event of the request, as the SDK sent it, with the uuid and distinct id capture settled. */
export interface CapturedEventData {
  readonly uuid: string;
  readonly distinct_id: string;
  readonly data: Readonly<Record<string, unknown>>;
}

const maxEventNameLength = 200;

/** Event names are strings of at most 200 characters (PostHog's `sanitizeEventName`). */
export function sanitizeEventName(name: unknown): string {
  const text = typeof name === 'string' ? name : (JSON.stringify(name) ?? String(name));
  // Characters are code points: a text of at most 200 UTF-16 units has at most 200 of them, as it is.
  if (text.length <= maxEventNameLength) return text;
  return [...text].slice(0, maxEventNameLength).join('');
}

/**
 * `ownsProperties`: the caller hands over `captured.data.properties`, which then become the stored
 * event's, changed in place; nothing else may read them afterwards. The consumer does: it parsed them
 * from the message itself, or the plugins' chain made them. Otherwise they are copied first. The copy
 * is cheap for properties as JSON.parse makes them, but several times dearer for an object V8 keeps
 * as a dictionary, which is what a chain of plugins adding and removing keys often leaves.
 */
export function processEvent(
  message: CaptureRequest,
  captured: CapturedEventData,
  ownsProperties = false,
): StoredEvent {
  const { data } = captured;
  const event = sanitizeEventName(data.event);
  const given = isObject(data.properties) ? data.properties : {};
  const properties = ownsProperties ? mergeTopLevelSetsInto(data, given) : mergeTopLevelSets(data, given);
  // Capture sends `ip: null` for a project that anonymizes IPs; an SDK's own `$ip` is kept.
  if (!properties.$ip && message.ip) properties.$ip = message.ip;
  // An event without a person has nowhere to put initial/UTM person properties.
  if (processesPerson(properties)) withInitialAndUtmProperties(event, properties);
  const elementsChain = takeElementsChain(properties);
  return {
    uuid: captured.uuid,
    projectId: message.project_id,
    event,
    distinctId: captured.distinct_id,
    properties,
    timestamp: eventTimestamp(data, new Date(message.now), message.sent_at).toISOString(),
    elementsChain,
    createdAt: message.now,
  };
}
