import { isObject } from '../domain/properties';
import { canonicalUuid } from '../domain/uuid';
import type { LakeColumn } from './schema';
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
  readonly person_properties?: Record<string, unknown> | null;
}

/** A column's value: text (a UUID as its canonical text), microseconds since the epoch (UTC), or null. */
export type LakeValue = string | bigint | null;

const micros = (iso: string): bigint => BigInt(Date.parse(iso)) * 1000n;

/** A property's value as a text column holds it: text as is, anything else but null as JSON. */
function propertyText(properties: Record<string, unknown>, name: string): string | null {
  if (!Object.hasOwn(properties, name)) return null;
  const value = properties[name];
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The value a property column holds, and whether it holds the property exactly (a string; for a
 * `uuid` column, a UUID in canonical form, as PostHog's SDKs send `$session_id`): only then is the
 * property left out of the row's `properties` JSON.
 */
function heldProperty(
  properties: Record<string, unknown>,
  column: LakeColumn & { readonly property: string },
): { value: string | null; exact: boolean } {
  const value = Object.hasOwn(properties, column.property) ? properties[column.property] : undefined;
  if (column.type === 'uuid') {
    const exact = typeof value === 'string' && canonicalUuid.test(value);
    return { value: exact ? value : null, exact };
  }
  return { value: propertyText(properties, column.property), exact: typeof value === 'string' };
}

/** `properties` without the keys in `held`, as JSON text; own keys only (`__proto__` stays a key). */
function storedPropertiesJson(properties: Record<string, unknown>, held: readonly string[]): string {
  if (held.length === 0) return JSON.stringify(properties);
  const stored: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(properties)) if (!held.includes(key)) stored[key] = properties[key];
  return JSON.stringify(stored);
}

const indexOf = (name: string): number => lakeColumns.findIndex((column) => column.name === name);
const propertyColumns = lakeColumns.flatMap((column, index) =>
  column.property === undefined ? [] : [{ column: { ...column, property: column.property }, index }],
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

/**
 * The event's row, one value per column of `lakeColumns` in its order. `groupTypes` is the project's
 * group type mapping (index → name): `group_<index>` holds the event's key of that type (`$groups`).
 * A property its column holds exactly is left out of `properties` (the reader's `propertiesSql`
 * puts it back).
 */
export function lakeRowOf(
  event: LakeEvent,
  groupTypes: Readonly<Record<string, string>>,
  insertedAt: Date,
): LakeValue[] {
  const row: LakeValue[] = new Array<LakeValue>(lakeColumns.length).fill(null);
  const { properties } = event;
  const held: string[] = [];
  for (const { column, index } of propertyColumns) {
    const { value, exact } = heldProperty(properties, column);
    row[index] = value;
    if (exact) held.push(column.property);
  }
  const groups = isObject(properties.$groups) ? properties.$groups : {};
  for (let index = 0; index < lakeGroupColumns; index++) {
    const type = Object.hasOwn(groupTypes, String(index)) ? groupTypes[String(index)] : undefined;
    row[positions.group + index] = type === undefined ? null : propertyText(groups, type);
  }
  row[positions.uuid] = event.uuid;
  row[positions.event] = event.event;
  row[positions.distinctId] = event.distinct_id;
  row[positions.personId] = event.person_id ?? null;
  row[positions.timestamp] = micros(event.timestamp);
  row[positions.insertedAt] = BigInt(insertedAt.getTime()) * 1000n;
  row[positions.createdAt] = micros(event.created_at);
  row[positions.properties] = storedPropertiesJson(properties, held);
  row[positions.personProperties] = event.person_properties ? JSON.stringify(event.person_properties) : null;
  row[positions.elementsChain] = event.elements_chain;
  return row;
}
