import { isObject } from '../domain/properties';
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

/** A column's value: text, microseconds since the epoch (UTC), or null. */
export type LakeValue = string | bigint | null;

const micros = (iso: string): bigint => BigInt(Date.parse(iso)) * 1000n;

/** A property's value as its column holds it: text as is, anything else but null as JSON. */
function propertyText(properties: Record<string, unknown>, name: string): string | null {
  if (!Object.hasOwn(properties, name)) return null;
  const value = properties[name];
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * The event's row, one value per column of `lakeColumns` in its order. `groupTypes` is the project's
 * group type mapping (index → name): `group_<index>` holds the event's key of that type (`$groups`).
 */
export function lakeRowOf(
  event: LakeEvent,
  groupTypes: Readonly<Record<string, string>>,
  insertedAt: Date,
): LakeValue[] {
  const groups = isObject(event.properties.$groups) ? event.properties.$groups : {};
  const groupKeys: (string | null)[] = Array.from({ length: lakeGroupColumns }, (_, index) => {
    const type = Object.hasOwn(groupTypes, String(index)) ? groupTypes[String(index)] : undefined;
    return type === undefined ? null : propertyText(groups, type);
  });
  const values: Record<string, LakeValue> = {
    uuid: event.uuid,
    event: event.event,
    distinct_id: event.distinct_id,
    person_id: event.person_id ?? null,
    timestamp: micros(event.timestamp),
    inserted_at: BigInt(insertedAt.getTime()) * 1000n,
    created_at: micros(event.created_at),
    properties: JSON.stringify(event.properties),
    person_properties: event.person_properties ? JSON.stringify(event.person_properties) : null,
    elements_chain: event.elements_chain,
  };
  for (let index = 0; index < lakeGroupColumns; index++) values[`group_${index}`] = groupKeys[index]!;
  return lakeColumns.map((column) =>
    column.property ? propertyText(event.properties, column.property) : (values[column.name] ?? null),
  );
}
