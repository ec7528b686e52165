import type { AstNode } from './ast';
import { HogQLError } from './errors';
import { jsonPath, stringLiteral } from './sql';

/**
 * The HogQL functions Flock translates to DuckDB, by HogQL name (ClickHouse semantics, as PostHog's
 * posthog/hogql/functions/mapping.py lists them). Only these names are ever emitted as calls: a name
 * not here (read_csv, file, s3, url, system functions…) is a 400, whatever its case or spelling.
 */
export interface FunctionCall {
  readonly name: string;
  /** The compiled arguments. */
  readonly args: readonly string[];
  /** The arguments' AST, for those that must be constants (a unit, a JSON key). */
  readonly nodes: readonly AstNode[];
  readonly distinct: boolean;
  /** The parametric arguments of `quantile(0.9)(x)`. */
  readonly params: readonly AstNode[];
}

export interface FunctionDef {
  readonly min: number;
  readonly max: number;
  readonly params?: number;
  /** An aggregation: an EventsQuery groups by the columns without one, and filters on it in HAVING. */
  readonly aggregate?: true;
  /**
   * Callable in any case (`COUNT()`, `Coalesce(…)`): the functions PostHog marks `case_sensitive=False`
   * (posthog/hogql/functions/mapping.py). Every other name must be written as listed.
   */
  readonly anyCase?: true;
  /**
   * What it answers when that matters to a comparison: a DateTime or a Date, so a string compared with
   * it is read as one (Trino converts nothing implicitly).
   */
  readonly returns?: 'datetime' | 'date';
  readonly emit: (call: FunctionCall) => string;
}

const arity = (call: FunctionCall, min: number, max: number): void => {
  if (call.args.length < min || call.args.length > max)
    throw new HogQLError(
      'hogql_invalid_arguments',
      `Function ${call.name} takes ${min === max ? min : `${min} to ${max}`} argument(s), got ${call.args.length}`,
    );
};

export function constantOf(call: FunctionCall, node: AstNode | undefined, what: string): string | number {
  if (node?.node === 'Constant' && (typeof node.value === 'string' || typeof node.value === 'number'))
    return node.value;
  throw new HogQLError('hogql_invalid_arguments', `Function ${call.name}: ${what} must be a constant`);
}

export const plain =
  (sqlName: string) =>
  (call: FunctionCall): string =>
    `${sqlName}(${call.distinct ? 'DISTINCT ' : ''}${call.args.join(', ')})`;

export const aggregate = (sqlName: string, anyCase?: true): FunctionDef => ({
  min: 1,
  max: 1,
  aggregate: true,
  ...(anyCase ? { anyCase } : {}),
  emit: plain(sqlName),
});

export const tryCast = (type: string) => (call: FunctionCall) => `TRY_CAST(${call.args[0]} AS ${type})`;

/** ClickHouse's toStartOfWeek: mode 0 (the default) starts weeks on Sunday, mode 1 on Monday. */
export function weekStartsOnSunday(call: FunctionCall): boolean {
  const mode = call.args.length > 1 ? constantOf(call, call.nodes[1], 'the week mode') : 0;
  if (mode !== 0 && mode !== 1 && mode !== 3)
    throw new HogQLError('hogql_invalid_arguments', `toStartOfWeek: week mode ${mode} is not supported`);
  return mode === 0;
}

function startOfWeek(call: FunctionCall): string {
  const value = call.args[0];
  return weekStartsOnSunday(call)
    ? `CAST(date_trunc('week', ${value} + INTERVAL 1 DAY) - INTERVAL 1 DAY AS DATE)`
    : `CAST(date_trunc('week', ${value}) AS DATE)`;
}

export const dateUnits = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

/** dateDiff's unit, checked against `dateUnits`. */
export function dateDiffUnit(call: FunctionCall): string {
  const unit = String(constantOf(call, call.nodes[0], 'the unit')).toLowerCase();
  if (!(dateUnits as readonly string[]).includes(unit))
    throw new HogQLError(
      'hogql_invalid_arguments',
      `dateDiff: unit '${unit}' is not one of ${dateUnits.join(', ')}`,
    );
  return unit;
}

const dateDiff = (call: FunctionCall): string =>
  `date_diff(${stringLiteral(dateDiffUnit(call))}, ${call.args[1]}, ${call.args[2]})`;

/** `toIntervalDay(n)` and friends, which `INTERVAL n DAY` parses to. */
const interval = (unit: string) => (call: FunctionCall) => `to_${unit}(CAST(${call.args[0]} AS BIGINT))`;

/** JSONExtract*'s keys (strings, or 1-based indices made 0-based), which must be constants. */
export const jsonKeys = (call: FunctionCall): (string | number)[] =>
  call.nodes.slice(1).map((node) => {
    const key = constantOf(call, node, 'each key');
    return typeof key === 'number' ? key - 1 : key;
  });

/** JSONExtract*(json, key, …): the keys (strings or 1-based indices) must be constants. */
function jsonExtract(cast: string | null) {
  return (call: FunctionCall): string => {
    const text = `json_extract_string(${call.args[0]}, ${stringLiteral(jsonPath(jsonKeys(call)))})`;
    return cast === null ? text : `TRY_CAST(${text} AS ${cast})`;
  };
}

const jsonExtractRaw = (call: FunctionCall): string => {
  const keys = call.nodes.slice(1).map((node) => constantOf(call, node, 'each key'));
  return `CAST(json_extract(${call.args[0]}, ${stringLiteral(jsonPath(keys))}) AS VARCHAR)`;
};

/** quantile(level)(x)'s level: a constant between 0 and 1. */
export function quantileLevel(call: FunctionCall): number {
  const level = constantOf(call, call.params[0], 'the level');
  if (typeof level !== 'number' || level < 0 || level > 1)
    throw new HogQLError('hogql_invalid_arguments', 'quantile: the level must be a number between 0 and 1');
  return level;
}

const quantile = (call: FunctionCall): string => `quantile_cont(${call.args[0]}, ${quantileLevel(call)})`;

/** HogQL name → definition: the allow-list of one dialect. */
export type FunctionTable = Readonly<Record<string, FunctionDef>>;

/** The DuckDB translations. */
export const duckDbFunctions: FunctionTable = {
  count: {
    min: 0,
    max: 1,
    aggregate: true,
    anyCase: true,
    emit: (call) => (call.args.length === 0 ? 'count(*)' : plain('count')(call)),
  },
  uniq: { min: 1, max: 1, aggregate: true, emit: (call) => `count(DISTINCT ${call.args[0]})` },
  uniqExact: { min: 1, max: 1, aggregate: true, emit: (call) => `count(DISTINCT ${call.args[0]})` },
  countIf: { min: 1, max: 1, aggregate: true, emit: (call) => `count(*) FILTER (WHERE ${call.args[0]})` },
  sumIf: {
    min: 2,
    max: 2,
    aggregate: true,
    emit: (call) => `sum(${call.args[0]}) FILTER (WHERE ${call.args[1]})`,
  },
  sum: aggregate('sum', true),
  avg: aggregate('avg', true),
  min: aggregate('min', true),
  max: aggregate('max', true),
  median: aggregate('median'),
  quantile: { min: 1, max: 1, params: 1, aggregate: true, emit: quantile },
  toStartOfHour: {
    min: 1,
    max: 1,
    returns: 'datetime',
    emit: (call) => `date_trunc('hour', ${call.args[0]})`,
  },
  toStartOfDay: { min: 1, max: 1, returns: 'datetime', emit: (call) => `date_trunc('day', ${call.args[0]})` },
  toStartOfWeek: { min: 1, max: 2, returns: 'date', emit: startOfWeek },
  toStartOfMonth: {
    min: 1,
    max: 1,
    returns: 'date',
    emit: (call) => `CAST(date_trunc('month', ${call.args[0]}) AS DATE)`,
  },
  toDate: { min: 1, max: 1, returns: 'date', emit: (call) => `CAST(${call.args[0]} AS DATE)` },
  toDateTime: { min: 1, max: 1, returns: 'datetime', emit: (call) => `CAST(${call.args[0]} AS TIMESTAMPTZ)` },
  now: { min: 0, max: 0, returns: 'datetime', emit: () => 'now()' },
  // PostHog lists `NOW` besides `now` (both `now64`).
  NOW: { min: 0, max: 0, returns: 'datetime', emit: () => 'now()' },
  today: { min: 0, max: 0, returns: 'date', emit: () => 'CAST(now() AS DATE)' },
  dateDiff: { min: 3, max: 3, emit: dateDiff },
  toIntervalSecond: { min: 1, max: 1, emit: interval('seconds') },
  toIntervalMinute: { min: 1, max: 1, emit: interval('minutes') },
  toIntervalHour: { min: 1, max: 1, emit: interval('hours') },
  toIntervalDay: { min: 1, max: 1, emit: interval('days') },
  toIntervalWeek: { min: 1, max: 1, emit: interval('weeks') },
  toIntervalMonth: { min: 1, max: 1, emit: interval('months') },
  toIntervalYear: { min: 1, max: 1, emit: interval('years') },
  JSONExtractString: { min: 2, max: 16, emit: jsonExtract(null) },
  JSONExtractInt: { min: 2, max: 16, emit: jsonExtract('BIGINT') },
  JSONExtractFloat: { min: 2, max: 16, emit: jsonExtract('DOUBLE') },
  JSONExtractBool: { min: 2, max: 16, emit: jsonExtract('BOOLEAN') },
  JSONExtractRaw: { min: 2, max: 16, emit: jsonExtractRaw },
  coalesce: { min: 1, max: 64, anyCase: true, emit: plain('coalesce') },
  ifNull: { min: 2, max: 2, anyCase: true, emit: plain('coalesce') },
  if: {
    min: 3,
    max: 3,
    anyCase: true,
    emit: (call) => `CASE WHEN ${call.args[0]} THEN ${call.args[1]} ELSE ${call.args[2]} END`,
  },
  like: { min: 2, max: 2, emit: (call) => `(${call.args[0]} LIKE ${call.args[1]})` },
  ilike: { min: 2, max: 2, emit: (call) => `(${call.args[0]} ILIKE ${call.args[1]})` },
  concat: { min: 1, max: 64, emit: plain('concat') },
  lower: { min: 1, max: 1, anyCase: true, emit: plain('lower') },
  upper: { min: 1, max: 1, anyCase: true, emit: plain('upper') },
  length: { min: 1, max: 1, anyCase: true, emit: plain('length') },
  toString: { min: 1, max: 1, emit: (call: FunctionCall) => `CAST(${call.args[0]} AS VARCHAR)` },
  toInt: { min: 1, max: 1, emit: tryCast('BIGINT') },
  toFloat: { min: 1, max: 1, emit: tryCast('DOUBLE') },
  round: { min: 1, max: 2, anyCase: true, emit: plain('round') },
  abs: { min: 1, max: 1, anyCase: true, emit: plain('abs') },
};

/** Per table, the functions callable in any case, by their lower-case name. */
const anyCaseTables = new WeakMap<FunctionTable, ReadonlyMap<string, FunctionDef>>();

function anyCaseDefinitions(table: FunctionTable): ReadonlyMap<string, FunctionDef> {
  let byName = anyCaseTables.get(table);
  if (byName === undefined) {
    byName = new Map(
      Object.entries(table).flatMap(([name, def]) => (def.anyCase ? [[name.toLowerCase(), def]] : [])),
    );
    anyCaseTables.set(table, byName);
  }
  return byName;
}

/**
 * The definition `name` calls, as PostHog's `_find_function` finds it: the name as written, else its
 * lower case when that function is case-insensitive (`COUNT` is `count`, `TOSTARTOFDAY` nothing).
 */
function definitionOf(name: string, table: FunctionTable): FunctionDef | undefined {
  if (Object.hasOwn(table, name)) return table[name];
  return anyCaseDefinitions(table).get(name.toLowerCase());
}

/**
 * What a call of `name` answers, found as the call itself is (`NOW()` is `now()`): a DateTime, a Date,
 * or undefined for anything else.
 */
export function resultKindOf(name: string): FunctionDef['returns'] {
  return definitionOf(name, duckDbFunctions)?.returns;
}

/** Whether `name` calls an aggregation (`count`, `sum`, `quantile`…). */
export function isAggregation(name: string): boolean {
  return definitionOf(name, duckDbFunctions)?.aggregate === true;
}

/** The SQL of an allowed call in `table`'s dialect; a 400 naming the function otherwise. */
export function emitCall(call: FunctionCall, table: FunctionTable = duckDbFunctions): string {
  const def = definitionOf(call.name, table);
  if (def === undefined) throw new HogQLError('hogql_unsupported', `Function ${call.name} is not supported`);
  arity(call, def.min, def.max);
  if ((def.params ?? 0) !== call.params.length)
    throw new HogQLError(
      'hogql_invalid_arguments',
      `Function ${call.name} takes ${def.params ?? 0} parameter(s)`,
    );
  if (call.distinct && def !== table.count)
    throw new HogQLError('hogql_unsupported', `DISTINCT is only supported in count(DISTINCT …)`);
  return def.emit(call);
}
