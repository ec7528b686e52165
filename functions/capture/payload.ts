import { v7 as uuidv7, validate as isUuid } from 'uuid';
import { ValidationError } from '../shared/http/errors';
import type { CapturedEvent } from '../shared/queue/message';

/**
 * Decoded payload → the events to ingest (reference §1.5, §1.6; spec §7).
 * Events without a name or distinct id are dropped, and the request still succeeds.
 */

export type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The list of raw events: `{batch: [...]}`, a bare array, or one event. */
export function rawEventsOf(payload: unknown): unknown[] {
  if (Array.isArray(payload)) return payload;
  if (isObject(payload) && payload.batch !== undefined && payload.batch !== null && payload.batch !== false) {
    if (!Array.isArray(payload.batch)) throw invalidPayload(`All events must be dictionaries not '${pythonType(payload.batch)}'!`);
    return payload.batch;
  }
  return [payload];
}

function pythonType(value: unknown): string {
  if (typeof value === 'string') return 'str';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'boolean') return 'bool';
  if (value === null) return 'NoneType';
  return Array.isArray(value) ? 'list' : 'dict';
}

function invalidPayload(reason: string): ValidationError {
  return new ValidationError('invalid_payload', `Invalid payload: ${reason}`);
}

/** Where PostHog looks for the token (reference §1.3): the envelope, then the first event. */
export function tokenOf(payload: unknown): unknown {
  const envelope = isObject(payload) ? payload : {};
  const events = Array.isArray(payload) ? payload : Array.isArray(envelope.batch) ? envelope.batch : [payload];
  const first: unknown = events[0];
  const event = isObject(first) ? first : {};
  const properties = isObject(event.properties) ? event.properties : {};
  const candidates = [envelope.api_key, envelope.token, event.$token, event.token, event.api_key, properties.token];
  return candidates.find((candidate) => candidate !== undefined && candidate !== null && candidate !== '');
}

const maxDistinctIdLength = 200;

function distinctIdOf(event: JsonObject): string | undefined {
  const properties = isObject(event.properties) ? event.properties : {};
  const raw = [event.distinct_id, event.$distinct_id, properties.distinct_id].find(
    (value) => value !== undefined && value !== null && value !== '',
  );
  if (raw === undefined) return undefined;
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
  if (text.trim() === '') return undefined;
  return [...text].slice(0, maxDistinctIdLength).join('');
}

/**
 * One raw event → what capture forwards, or undefined when spec §7 says drop it (no name, no
 * distinct id). A non-object event or a malformed uuid makes the whole request a 400.
 */
export function captureEvent(raw: unknown): CapturedEvent | undefined {
  if (!isObject(raw)) throw invalidPayload(`All events must be dictionaries not '${pythonType(raw)}'!`);
  if (typeof raw.event !== 'string' || raw.event === '') return undefined;
  const distinctId = distinctIdOf(raw);
  if (distinctId === undefined) return undefined;
  const uuid = raw.uuid === undefined || raw.uuid === null || raw.uuid === '' ? uuidv7() : raw.uuid;
  if (typeof uuid !== 'string' || !isUuid(uuid)) throw invalidPayload('Event field "uuid" is not a valid UUID!');
  const data: JsonObject = { ...raw, properties: isObject(raw.properties) ? raw.properties : {} };
  return { uuid: uuid.toLowerCase(), distinct_id: distinctId, data };
}
