import { lakePropertyColumns } from './schema';

/**
 * Reading an event's properties back from a lake row. The writer (row.ts) leaves a property out of the
 * `properties` JSON when its column holds it exactly (a string in a text column, a canonical UUID in a
 * `uuid` column), so the JSON alone is not the event's properties: readers put those values back.
 * Files of schema version 1 hold every property in the JSON; nothing is put back there.
 */

const sqlString = (text: string): string => `'${text.replaceAll("'", "''")}'`;
const jsonKeyPath = (key: string): string =>
  sqlString(`$."${key.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`);

/**
 * DuckDB SQL of the event's properties (JSON) from a lake row: the stored JSON, plus each property a
 * column holds that the JSON does not (a column of a property kept in the JSON, such as a number
 * `$browser` written as text, never overrides it). `column(name)` is the SQL of a lake column.
 */
export function propertiesSql(column: (name: string) => string): string {
  const stored = column('properties');
  const entries = lakePropertyColumns.map(
    (held) =>
      `{'k': ${sqlString(held.property)}, 'v': CASE WHEN json_exists(${stored}, ${jsonKeyPath(held.property)}) ` +
      `THEN NULL ELSE CAST(${column(held.name)} AS VARCHAR) END}`,
  );
  return (
    `json_merge_patch(${stored}, to_json(map_from_entries(` +
    `list_filter([${entries.join(', ')}], entry -> entry.v IS NOT NULL))))`
  );
}
