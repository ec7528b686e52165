import { canonicalUuid } from '../shared/domain/uuid';
import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { nameUuid } from '../shared/domain/name-uuid';
import { cutDistinctId } from '../shared/domain/persons';
import type { CapturedEvent } from '../shared/queue/message';
import { applyClientMessageType } from './client-message';
import { invalidPayload } from './errors';
import type { JsonObject } from '../shared/public/python';
import { isTruthy, pythonTypeName } from '../shared/public/python';
import { isObject } from '../shared/domain/properties';

/**
 * Decoded payload → the events to forward (PostHog's `posthog/api/capture.py`, Django `get_event`), with
 * the rule that an event without a name or a distinct id is dropped while the request still succeeds.
 * Events are the freshly parsed request objects and are completed in place: no copies on this path.
 */

/**
 * The raw events: `{batch: [...]}` (server SDKs, posthog-js envelope), a bare array (legacy
 * posthog-js), or one event. A dict posted to /engage/ is posthog-js's legacy identify call.
 */
export function rawEventsOf(payload: unknown, path: string): unknown[] {
  if (Array.isArray(payload)) return payload;
  if (isObject(payload)) {
    // Django: a truthy `batch` that is not a list is one "event", which then fails as a non-dict.
    if (isTruthy(payload.batch)) return Array.isArray(payload.batch) ? payload.batch : [payload.batch];
    if (path.includes('engage')) payload.event = '$identify';
  }
  return [payload];
}

/** Missing or falsy properties become {} (Django `parse_event`); any other non-object is refused (Django 2023). */
function propertiesOf(event: JsonObject): JsonObject {
  const { properties } = event;
  if (isObject(properties)) return properties;
  if (isTruthy(properties)) {
    throw invalidPayload(`Properties must be a JSON object, received ${pythonTypeName(properties)}!`);
  }
  const empty: JsonObject = {};
  event.properties = empty;
  return empty;
}

/**
 * Django's lookup order: `$distinct_id`, then `properties.distinct_id`, then top-level `distinct_id`
 * (posthog-js puts it in properties, posthog-node at the top). A null is skipped like a missing key
 * (as Rust capture does); a falsy value means "no distinct id". Non-strings are stringified
 * (`2` → "2"), then cut to 200 characters.
 */
function distinctIdOf(event: JsonObject, properties: JsonObject): string | undefined {
  const raw = event.$distinct_id ?? properties.distinct_id ?? event.distinct_id;
  if (!isTruthy(raw)) return undefined;
  const text = typeof raw === 'string' ? raw : typeof raw === 'number' ? String(raw) : JSON.stringify(raw);
  return cutDistinctId(text);
}

const uuidHex = /^[0-9a-f]{32}$/i;

/** Python's `text.strip('{}')` (a loop: `/[{}]+$/` backtracks quadratically on a run of braces). */
function stripBraces(text: string): string {
  const isBrace = (char: string | undefined): boolean => char === '{' || char === '}';
  let start = 0;
  let end = text.length;
  while (start < end && isBrace(text[start])) start += 1;
  while (end > start && isBrace(text[end - 1])) end -= 1;
  return text.slice(start, end);
}

/** Namespace of the uuids capture derives from an event's content (uuid v5). */
const contentUuidNamespace = '1b671a64-40d5-491b-99b0-da01ff1ee3d8';

/**
 * The uuid of an event the client sent without one. With its own `timestamp` (server SDKs such as
 * posthog-python, Ruby, Go and PHP send one, to the millisecond or finer), the event is named by its
 * content: when a partial 503 makes the SDK send the request again, the events already queued get
 * the same uuid and collapse in storage. Without a timestamp, two identical events are genuinely two
 * events (a heartbeat sent twice), so each gets a fresh UUIDv7. `json`: the event as it arrived, if
 * it has a timestamp.
 */
function generatedUuid(json: string | undefined): string {
  return json === undefined
    ? uuidv7()
    : nameUuid(createHash('sha256').update(json).digest('hex'), contentUuidNamespace);
}

/**
 * The client's uuid, which makes retried and beaconed duplicates collapse in storage; else a UUIDv7.
 * Accepted as Django's `UUIDT.is_valid_uuid` does (any 128-bit hex, with or without dashes, braces or
 * `urn:uuid:`; no version check: PostHog's own `01823e89-f75d-0000-0d4d-3d43e54f6de5` is valid) and
 * forwarded in canonical lower-case form.
 */
function uuidOf(value: unknown): string | undefined {
  if (!isTruthy(value)) return undefined;
  if (typeof value === 'string') {
    if (canonicalUuid.test(value)) return value;
    const hex = stripBraces(value.replaceAll('urn:', '').replaceAll('uuid:', '')).replaceAll('-', '');
    if (uuidHex.test(hex)) {
      const h = hex.toLowerCase();
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
  }
  throw invalidPayload('Event field "uuid" is not a valid UUID!');
}

/**
 * One raw event → what capture forwards, or undefined when it is dropped (no distinct id, no name).
 * Refused with 400 (the whole request): a non-object event, non-object properties, a `$snapshot`
 * without `$snapshot_data`, a malformed uuid. Checks run in Django's order.
 */
export function capturedEventOf(raw: unknown): CapturedEvent | undefined {
  if (!isObject(raw)) throw invalidPayload(`All events must be dictionaries not '${pythonTypeName(raw)}'!`);
  // Read before the event is completed in place, so a retried request names its events the same.
  const arrived = !isTruthy(raw.uuid) && isTruthy(raw.timestamp) ? JSON.stringify(raw) : undefined;
  const properties = propertiesOf(raw);
  applyClientMessageType(raw, properties);
  if (raw.event === '$snapshot' && !('$snapshot_data' in properties)) {
    throw invalidPayload('$snapshot events must contain property "$snapshot_data"!');
  }
  const distinctId = distinctIdOf(raw, properties);
  if (distinctId === undefined) return undefined;
  const uuid = uuidOf(raw.uuid);
  if (!isTruthy(raw.event)) return undefined;
  return { uuid: uuid ?? generatedUuid(arrived), distinct_id: distinctId, data: raw };
}

/** Every event of the request, validated before any is forwarded: a 400 forwards nothing. */
export function capturedEventsOf(rawEvents: readonly unknown[]): CapturedEvent[] {
  const events: CapturedEvent[] = [];
  for (const raw of rawEvents) {
    const captured = capturedEventOf(raw);
    if (captured) events.push(captured);
  }
  return events;
}
