import type { JsonObject } from '../shared/public/python';
import { isTruthy } from '../shared/public/python';
import { isObject } from '../shared/domain/properties';

/**
 * The Segment-style client messages PostHog's capture accepts (`posthog/api/capture.py`): a `type` of alias, identify, page or screen names
 * the PostHog event (`$create_alias`, `$identify`, `$page`, `$screen`) and says where its fields go.
 * A message that already names its event keeps it, so posthog-node 4.x, which adds `type`, `library`
 * and `library_version` to every event, passes unchanged; `type: "capture"` always keeps `event`.
 */
const eventOfType = new Map<string, string>([
  ['alias', '$create_alias'],
  ['identify', '$identify'],
  ['page', '$page'],
  ['screen', '$screen'],
]);

/** identify: the person properties come as `traits` or `$set`; `$set` wins where both name a key. */
function identify(message: JsonObject): void {
  if (isObject(message.traits))
    message.$set = { ...message.traits, ...(isObject(message.$set) ? message.$set : {}) };
}

/** alias: the other id is `properties.alias`; a top-level `alias` is moved there. */
function alias(message: JsonObject, properties: JsonObject): void {
  if (properties.alias === undefined && message.alias !== undefined) properties.alias = message.alias;
}

/** page / screen: `name` and `category` become properties, unless the properties already have them. */
function pageOrScreen(message: JsonObject, properties: JsonObject): void {
  for (const key of ['name', 'category'] as const) {
    if (properties[key] === undefined && message[key] !== undefined) properties[key] = message[key];
  }
}

/** Applies a client message's `type` to the event in place. `properties` is the event's (object) properties. */
export function applyClientMessageType(message: JsonObject, properties: JsonObject): void {
  if (typeof message.type !== 'string') return;
  const eventName = eventOfType.get(message.type);
  if (eventName === undefined) return;
  if (!isTruthy(message.event)) message.event = eventName;
  if (message.type === 'identify') identify(message);
  else if (message.type === 'alias') alias(message, properties);
  else pageOrScreen(message, properties);
}
