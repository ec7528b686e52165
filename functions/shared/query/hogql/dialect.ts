import { duckDbJsonString, eventsRelation } from './events-table';
import type { FunctionCall } from './functions';
import { emitCall } from './functions';

/**
 * What differs between the SQL engines the HogQL compiler writes for: DuckDB (the query function's own
 * engine over the files it downloads) and Trino, as Athena engine 3 runs it over the lake's Glue table
 * (./trino.ts). The compiler's structure (quoting, the allow-list of functions, the project's relation)
 * is the same for both; each dialect only spells what its engine spells differently.
 */
export interface SqlDialect {
  readonly name: 'duckdb' | 'trino';
  /** The project's rows of `events` with HogQL's column names: the only way the SQL reads the table. */
  events(projectId: number): string;
  /** The text at `keys` of the JSON text `json` (a scalar's text; null when absent). */
  readonly jsonString: (json: string, keys: readonly (string | number)[]) => string;
  /** `expr` cast to a HogQL type (lowercase name), or undefined when the type is not supported. */
  cast(expr: string, type: string): string | undefined;
  /** `left [NOT] ILIKE right`. */
  ilike(left: string, right: string, negated: boolean): string;
  /**
   * A comparison's operand as the engine compares it with the other side's kind: a string constant
   * beside a DateTime or Date, a number beside a property's text. DuckDB converts implicitly; Trino
   * does not. `value` is the operand's own value when it is a constant.
   */
  operand(sql: string, own: OperandKind, other: OperandKind, value?: unknown): string;
  /** The LIMIT and OFFSET clause, each absent when null. */
  page(limit: number | null, offset: number | null): string;
  /** An allowed function call (./functions.ts checks the name and arity). */
  call(call: FunctionCall): string;
}

/** What the compiler knows of an operand's type, without a full type checker. */
export type OperandKind = 'datetime' | 'date' | 'text' | 'string-constant' | 'number-constant' | 'other';

/** HogQL cast types (lowercase) that every dialect spells alike; DateTime differs (the timezone). */
export const plainCastTypes: Readonly<Record<string, string>> = {
  int: 'BIGINT',
  integer: 'BIGINT',
  int64: 'BIGINT',
  float: 'DOUBLE',
  float64: 'DOUBLE',
  double: 'DOUBLE',
  string: 'VARCHAR',
  varchar: 'VARCHAR',
  text: 'VARCHAR',
  date: 'DATE',
  boolean: 'BOOLEAN',
  bool: 'BOOLEAN',
};

/** HogQL cast types in DuckDB, whose session timezone is the project's. */
const duckDbTypes: Readonly<Record<string, string>> = { ...plainCastTypes, datetime: 'TIMESTAMPTZ' };

/**
 * DuckDB, over the relation the query function makes of the project's downloaded files, in a session
 * whose timezone is the project's: string constants convert to the other operand's type implicitly.
 */
export const duckDbDialect: SqlDialect = {
  name: 'duckdb',
  events: eventsRelation,
  jsonString: duckDbJsonString,
  cast: (expr, type) =>
    Object.hasOwn(duckDbTypes, type) ? `TRY_CAST(${expr} AS ${duckDbTypes[type]})` : undefined,
  ilike: (left, right, negated) => `(${left} ${negated ? 'NOT ILIKE' : 'ILIKE'} ${right})`,
  operand: (sql) => sql,
  page: (limit, offset) =>
    `${limit === null ? '' : ` LIMIT ${limit}`}${offset === null ? '' : ` OFFSET ${offset}`}`,
  call: (call) => emitCall(call),
};
