import { isObject } from '../domain/properties';
import { canonicalUuid } from '../domain/uuid';
import { lakeColumns, lakeGroupColumns } from './schema';

/**
 * An event as the consumer hands it to the lake (functions/consumer/lake.ts): stored, as the plugins
 * left it. PostHog's field names, as on the exports queue.
 */
export interface LakeEvent {
  readonly uuid: string;
  readonly event: string;
  readonly distinct_id: string;
  /** ISO 8601 UTC with milliseconds. */
  readonly timestamp: string;
  /** ISO 8601 UTC: when Flock received it. */
  readonly created_at: string;
  readonly properties: Record<string, unknown>;
  readonly elements_chain: string;
  readonly person_id?: string | null;
  readonly person_properties?: Readonly<Record<string, unknown>> | null;
}

/**
 * Person properties as JSON text, once per object: a hand-off lists a person's properties once for
 * all the events that carry them (queue/lake-message.ts), and its events share the parsed object.
 */
const personPropertiesTexts = new WeakMap<object, string>();
function personPropertiesJson(properties: Readonly<Record<string, unknown>>): string {
  let json = personPropertiesTexts.get(properties);
  if (json === undefined) {
    json = JSON.stringify(properties);
    personPropertiesTexts.set(properties, json);
  }
  return json;
}

/** A column's value: text (a UUID as its canonical text), microseconds since the epoch (UTC), or null. */
export type LakeValue = string | bigint | null;

/** Microseconds since the epoch of an ISO 8601 time (the product is exact below 2^53, until year 2255). */
const micros = (iso: string): bigint => BigInt(Date.parse(iso) * 1000);

/** A property's value as a text column holds it: text as is, anything else but null as JSON. */
function propertyText(properties: Record<string, unknown>, name: string): string | null {
  if (!Object.hasOwn(properties, name)) return null;
  const value = properties[name];
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `properties` without the keys in `held`, as JSON text; own keys only (`__proto__` stays a key). */
function storedPropertiesJson(properties: Record<string, unknown>, held: readonly string[]): string {
  if (held.length === 0) return JSON.stringify(properties);
  // Keys added in order to a plain object: the shape JSON.stringify is fastest on.
  const stored: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) {
    if (held.includes(key)) continue;
    if (key === '__proto__')
      Object.defineProperty(stored, key, {
        value: properties[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else stored[key] = properties[key];
  }
  return JSON.stringify(stored);
}

const indexOf = (name: string): number => lakeColumns.findIndex((column) => column.name === name);

/**
 * The property columns, each holding its property exactly when it is a string (for a `uuid` column, a
 * UUID in canonical form, as PostHog's SDKs send `$session_id`): only then is the property left out
 * of the row's `properties` JSON. A `uuid` column holds nothing else; a text column holds any other
 * value but null as its JSON text (the property staying in the JSON).
 */
const propertyColumns = lakeColumns.flatMap((column, index) =>
  column.property === undefined ? [] : [{ property: column.property, index, uuid: column.type === 'uuid' }],
);
const positions = {
  uuid: indexOf('uuid'),
  event: indexOf('event'),
  distinctId: indexOf('distinct_id'),
  personId: indexOf('person_id'),
  timestamp: indexOf('timestamp'),
  insertedAt: indexOf('inserted_at'),
  createdAt: indexOf('created_at'),
  properties: indexOf('properties'),
  personProperties: indexOf('person_properties'),
  elementsChain: indexOf('elements_chain'),
  group: indexOf('group_0'),
};
const emptyRow: readonly LakeValue[] = lakeColumns.map(() => null);

/**
 * The event's row, one value per column of `lakeColumns` in its order. `groupTypes` is the project's
 * group type mapping (index → name): `group_<index>` holds the event's key of that type (`$groups`).
 * A property its column holds exactly is left out of `properties` (the reader's `propertiesSql`
 * puts it back). Built column by column into one array: the lake writer runs it once per event.
 */
export function lakeRowOf(
  event: LakeEvent,
  groupTypes: Readonly<Record<string, string>>,
  insertedAt: Date,
): LakeValue[] {
  const row = emptyRow.slice();
  const { properties } = event;
  const held: string[] = [];
  for (const { property, index, uuid } of propertyColumns) {
    if (!Object.hasOwn(properties, property)) continue;
    const value = properties[property];
    if (typeof value === 'string') {
      if (uuid && !canonicalUuid.test(value)) continue;
      row[index] = value;
      held.push(property);
    } else if (!uuid && value !== null && value !== undefined) row[index] = JSON.stringify(value);
  }
  const groups = isObject(properties.$groups) ? properties.$groups : undefined;
  for (let index = 0; groups !== undefined && index < lakeGroupColumns; index++) {
    const type = Object.hasOwn(groupTypes, String(index)) ? groupTypes[String(index)] : undefined;
    if (type !== undefined) row[positions.group + index] = propertyText(groups, type);
  }
  row[positions.uuid] = event.uuid;
  row[positions.event] = event.event;
  row[positions.distinctId] = event.distinct_id;
  row[positions.personId] = event.person_id ?? null;
  row[positions.timestamp] = micros(event.timestamp);
  row[positions.insertedAt] = BigInt(insertedAt.getTime() * 1000);
  row[positions.createdAt] = micros(event.created_at);
  row[positions.properties] = storedPropertiesJson(properties, held);
  row[positions.personProperties] = event.person_properties
    ? personPropertiesJson(event.person_properties)
    : null;
  row[positions.elementsChain] = event.elements_chain;
  return row;
}

/**
 * The rows of `events` (`lakeRowOf`), each built as the Parquet writer takes it (`parquetOf` takes
 * any iterable), so a flush never holds all its rows at once. Holding 100,000 of them until their file
 * was written kept them alive past V8's young generation, and collecting them then cost the writer
 * about a sixth of its CPU (bench/lake).
 */
export function* lakeRowsOf(
  events: Iterable<LakeEvent>,
  groupTypes: Readonly<Record<string, string>>,
  insertedAt: Date,
): Generator<LakeValue[]> {
  for (const event of events) yield lakeRowOf(event, groupTypes, insertedAt);
}
