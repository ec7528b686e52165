/** Quoting for the SQL the HogQL compiler emits: every identifier and string goes through here. */

/** A DuckDB identifier, double-quoted (`"` doubled), whatever its text. */
export function identifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A DuckDB string literal (`'` doubled; DuckDB reads no backslash escapes in plain literals). */
export function stringLiteral(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A JSON path (`$."a"."b"`) naming nested keys, for json_extract*: each key quoted, `"` and `\` escaped. */
export function jsonPath(keys: readonly (string | number)[]): string {
  return (
    '$' +
    keys
      .map((key) =>
        typeof key === 'number' ? `[${key}]` : `."${key.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`,
      )
      .join('')
  );
}
