import type createHogQLParser from '@posthog/hogql-parser';
import type { AstNode } from './ast';
import { checkBounds, checkTextBounds, expectOnly, isNode } from './ast';
import { HogQLError } from './errors';
import {
  eventsRelation,
  eventsStarColumns,
  isEventsColumn,
  materialisedColumns,
  storedPropertiesColumn,
  personPropertiesColumn,
} from './events-table';
import { emitCall } from './functions';
import { identifier, jsonPath, stringLiteral } from './sql';

/**
 * HogQL → DuckDB SQL, from the AST of PostHog's own parser (never the query text). Everything the
 * output holds is produced here: identifiers are always quoted, strings always literals, calls only
 * those of the allow-list (./functions.ts), tables only `events` (through the project's filter,
 * ./events-table.ts) and sub-queries. Whatever else the AST holds is a 400 naming it.
 */

/** Rows a query returns when it sets no LIMIT (PostHog's HogQLHasMorePaginator). */
export const defaultLimit = 100;
/** The most rows a top-level LIMIT may ask for (PostHog clamps to it silently). */
export const maxLimit = 50_000;

export interface CompiledQuery {
  /** DuckDB SQL over the caller's `events` relation. */
  readonly sql: string;
  /** The result's column names, PostHog's naming rules (posthog/hogql/resolver.py). */
  readonly columns: readonly string[];
  /**
   * Without a top-level LIMIT the SQL asks for `limit + 1` rows: the caller returns `limit` of them and
   * `hasMore` when the extra one came back. With one, `limit` and `offset` are null (as PostHog answers).
   */
  readonly paginated: boolean;
  readonly limit: number | null;
  readonly offset: number | null;
}

export interface CompileOptions {
  readonly projectId: number;
}

interface Scope {
  readonly kind: 'events' | 'subquery' | 'none';
  /** The table's name or alias, which may prefix a field. */
  readonly alias: string | null;
  /** A sub-query's output columns. */
  readonly columns: ReadonlySet<string>;
  /** The aliases of the current SELECT, which its clauses may name. */
  readonly selectAliases: ReadonlySet<string>;
}

interface Context {
  readonly text: string;
  readonly projectId: number;
}

const comparisons: Readonly<Record<string, string>> = {
  '==': '=',
  '!=': '<>',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
  like: 'LIKE',
  ilike: 'ILIKE',
  'not like': 'NOT LIKE',
  'not ilike': 'NOT ILIKE',
  in: 'IN',
  'not in': 'NOT IN',
};

const arithmetic = new Set(['+', '-', '*', '/', '%']);

const castTypes: Readonly<Record<string, string>> = {
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
  datetime: 'TIMESTAMPTZ',
  boolean: 'BOOLEAN',
  bool: 'BOOLEAN',
};

function asNode(value: unknown, where: string): AstNode {
  if (!isNode(value)) throw new HogQLError('hogql_unsupported', `Malformed query: ${where}`);
  return value;
}

const nodesOf = (value: unknown, where: string): AstNode[] =>
  Array.isArray(value) ? value.map((item) => asNode(item, where)) : [];

function constant(node: AstNode): string {
  const value = node.value;
  if (value === null) return 'NULL';
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new HogQLError('hogql_unsupported', 'Non-finite numbers are not supported');
    return String(value);
  }
  if (typeof value === 'string') {
    if (value.includes('\u0000'))
      throw new HogQLError('hogql_unsupported', 'Strings may not hold NUL characters');
    return stringLiteral(value);
  }
  throw new HogQLError('hogql_unsupported', `Constant of type ${typeof value} is not supported`);
}

function chainOf(node: AstNode): string[] {
  const chain = node.chain;
  if (!Array.isArray(chain) || chain.some((part) => typeof part !== 'string'))
    throw new HogQLError('hogql_unsupported', 'Only named fields are supported (no positional access)');
  return chain as string[];
}

/** A property path (`properties.$x.y` → `$x`, `y`), or null when the chain is not one. */
function propertyPath(chain: readonly string[]): { source: 'event' | 'person'; keys: string[] } | null {
  if (chain[0] === 'properties' && chain.length > 1) return { source: 'event', keys: chain.slice(1) };
  if (chain[0] === 'person' && chain[1] === 'properties' && chain.length > 2)
    return { source: 'person', keys: chain.slice(2) };
  return null;
}

/** A field's chain without the table's name or alias in front. */
function unqualified(chain: readonly string[], scope: Scope): readonly string[] {
  const prefixes = scope.kind === 'events' ? [scope.alias, 'events'] : [scope.alias];
  return chain.length > 1 && prefixes.includes(chain[0]!) ? chain.slice(1) : chain;
}

function field(node: AstNode, scope: Scope): string {
  const chain = unqualified(chainOf(node), scope);
  const name = chain.join('.');
  if (chain.length === 1 && scope.selectAliases.has(name)) return identifier(name);
  if (scope.kind === 'subquery' && chain.length === 1 && scope.columns.has(name)) return identifier(name);
  if (scope.kind === 'events') {
    const property = propertyPath(chain);
    if (property?.source === 'event') {
      const column = property.keys.length === 1 ? materialisedColumns.get(property.keys[0]!) : undefined;
      if (column !== undefined) return identifier(column);
      return `json_extract_string(${identifier(storedPropertiesColumn)}, ${stringLiteral(jsonPath(property.keys))})`;
    }
    if (property?.source === 'person')
      return `json_extract_string(${identifier(personPropertiesColumn)}, ${stringLiteral(jsonPath(property.keys))})`;
    if (name === 'person.properties') return identifier(personPropertiesColumn);
    if (name === 'person.id') return identifier('person_id');
    if (chain.length === 1 && isEventsColumn(name)) return identifier(name);
  }
  throw new HogQLError('hogql_unknown_name', `Unable to resolve field: ${name}`);
}

function inList(node: AstNode, scope: Scope, ctx: Context): string {
  if (node.node === 'Tuple' || node.node === 'Array') {
    expectOnly(node, ['exprs']);
    const items = nodesOf(node.exprs, 'list').map((item) => expression(item, scope, ctx));
    if (items.length === 0) throw new HogQLError('hogql_unsupported', 'IN needs at least one value');
    return `(${items.join(', ')})`;
  }
  if (node.node === 'SelectQuery') return `(${selectQuery(node, ctx, false).sql})`;
  return `(${expression(node, scope, ctx)})`;
}

function compare(node: AstNode, scope: Scope, ctx: Context): string {
  expectOnly(node, ['left', 'right', 'op', 'is_null_comparison_style']);
  const op =
    typeof node.op === 'string' && Object.hasOwn(comparisons, node.op) ? comparisons[node.op]! : undefined;
  if (op === undefined)
    throw new HogQLError('hogql_unsupported', `Operator ${String(node.op)} is not supported`);
  const left = expression(asNode(node.left, 'comparison'), scope, ctx);
  const rightNode = asNode(node.right, 'comparison');
  if (op === 'IN' || op === 'NOT IN') return `(${left} ${op} ${inList(rightNode, scope, ctx)})`;
  // HogQL compares with NULL as ClickHouse's isNull/isNotNull (posthog/hogql/printer.py).
  if (rightNode.node === 'Constant' && rightNode.value === null && (op === '=' || op === '<>'))
    return `(${left} IS ${op === '=' ? '' : 'NOT '}NULL)`;
  return `(${left} ${op} ${expression(rightNode, scope, ctx)})`;
}

function call(node: AstNode, scope: Scope, ctx: Context): string {
  expectOnly(node, ['name', 'args', 'distinct', 'params']);
  const args = nodesOf(node.args, 'arguments');
  return emitCall({
    name: String(node.name),
    args: args.map((arg) => expression(arg, scope, ctx)),
    nodes: args,
    distinct: node.distinct === true,
    params: nodesOf(node.params, 'parameters'),
  });
}

function expression(node: AstNode, scope: Scope, ctx: Context): string {
  switch (node.node) {
    case 'Constant':
      expectOnly(node, ['value']);
      return constant(node);
    case 'Field':
      expectOnly(node, ['chain']);
      return field(node, scope);
    case 'And':
    case 'Or': {
      expectOnly(node, ['exprs']);
      const parts = nodesOf(node.exprs, node.node).map((part) => expression(part, scope, ctx));
      return `(${parts.join(node.node === 'And' ? ' AND ' : ' OR ')})`;
    }
    case 'Not':
      expectOnly(node, ['expr']);
      return `(NOT ${expression(asNode(node.expr, 'NOT'), scope, ctx)})`;
    case 'CompareOperation':
      return compare(node, scope, ctx);
    case 'ArithmeticOperation': {
      expectOnly(node, ['left', 'right', 'op']);
      if (typeof node.op !== 'string' || !arithmetic.has(node.op))
        throw new HogQLError('hogql_unsupported', `Operator ${String(node.op)} is not supported`);
      const left = expression(asNode(node.left, 'arithmetic'), scope, ctx);
      return `(${left} ${node.op} ${expression(asNode(node.right, 'arithmetic'), scope, ctx)})`;
    }
    case 'BetweenExpr': {
      expectOnly(node, ['expr', 'low', 'high', 'negated']);
      const [value, low, high] = [node.expr, node.low, node.high].map((part) =>
        expression(asNode(part, 'BETWEEN'), scope, ctx),
      );
      return `(${value} ${node.negated === true ? 'NOT ' : ''}BETWEEN ${low} AND ${high})`;
    }
    case 'TypeCast': {
      expectOnly(node, ['expr', 'type_name']);
      const type = String(node.type_name).toLowerCase();
      if (!Object.hasOwn(castTypes, type))
        throw new HogQLError('hogql_unsupported', `Cast to ${String(node.type_name)} is not supported`);
      return `TRY_CAST(${expression(asNode(node.expr, 'cast'), scope, ctx)} AS ${castTypes[type]})`;
    }
    case 'Call':
      return call(node, scope, ctx);
    case 'SelectQuery':
      return `(${selectQuery(node, ctx, false).sql})`;
    default:
      throw new HogQLError('hogql_unsupported', `${node.node} is not supported`);
  }
}

/** A constant non-negative integer (LIMIT, OFFSET). */
function count(value: unknown, clause: string): number {
  const node = asNode(value, clause);
  if (
    node.node !== 'Constant' ||
    typeof node.value !== 'number' ||
    !Number.isSafeInteger(node.value) ||
    node.value < 0
  )
    throw new HogQLError('hogql_unsupported', `${clause} must be a non-negative integer constant`);
  return node.value;
}

/** The FROM clause and the scope it opens. */
function from(
  value: unknown,
  ctx: Context,
  selectAliases: ReadonlySet<string>,
): { sql: string; scope: Scope } {
  if (value === null || value === undefined)
    return { sql: '', scope: { kind: 'none', alias: null, columns: new Set(), selectAliases } };
  const join = asNode(value, 'FROM');
  if (join.node !== 'JoinExpr')
    throw new HogQLError('hogql_unsupported', `FROM ${join.node} is not supported`);
  if (join.next_join !== null && join.next_join !== undefined)
    throw new HogQLError('hogql_unsupported', 'JOIN is not supported');
  if (Array.isArray(join.table_args))
    throw new HogQLError('hogql_unsupported', 'Table functions are not supported');
  expectOnly(join, ['table', 'alias']);
  const alias = typeof join.alias === 'string' ? join.alias : null;
  const table = asNode(join.table, 'FROM');
  if (table.node === 'Field') {
    const name = chainOf(table).join('.');
    if (name !== 'events') throw new HogQLError('hogql_unknown_name', `Unknown table: ${name}`);
    return {
      sql: ` FROM ${eventsRelation(ctx.projectId)} AS ${identifier(alias ?? 'events')}`,
      scope: { kind: 'events', alias: alias ?? 'events', columns: new Set(), selectAliases },
    };
  }
  if (table.node === 'SelectQuery') {
    const inner = selectQuery(table, ctx, false);
    return {
      sql: ` FROM (${inner.sql}) AS ${identifier(alias ?? '__subquery')}`,
      scope: { kind: 'subquery', alias, columns: new Set(inner.columns), selectAliases },
    };
  }
  if (table.node === 'SelectSetQuery') throw new HogQLError('hogql_unsupported', 'UNION is not supported');
  throw new HogQLError('hogql_unsupported', `FROM ${table.node} is not supported`);
}

/** PostHog's name of a select column: its alias, a field's last name, a property's path, or its text. */
function columnName(node: AstNode, ctx: Context, index: number): string {
  if (node.node === 'Field') {
    const chain = chainOf(node);
    const property = propertyPath(chain[0] === 'events' ? chain.slice(1) : chain);
    return property ? property.keys.join('__') : chain.at(-1)!;
  }
  const start = node.start?.offset;
  const end = node.end?.offset;
  return typeof start === 'number' && typeof end === 'number' && end > start
    ? ctx.text.slice(start, end)
    : `column_${index + 1}`;
}

function selectList(
  items: AstNode[],
  scope: Scope,
  ctx: Context,
  inner: readonly string[],
): { sql: string[]; columns: string[] } {
  const sql: string[] = [];
  const columns: string[] = [];
  items.forEach((item, index) => {
    if (item.node === 'Field' && unqualified(chainOf(item), scope).join('.') === '*') {
      const names =
        scope.kind === 'events' ? eventsStarColumns : scope.kind === 'subquery' ? inner : undefined;
      if (names === undefined) throw new HogQLError('hogql_unsupported', 'SELECT * needs a FROM');
      for (const name of names) {
        sql.push(`${field({ node: 'Field', chain: [name] }, scope)} AS ${identifier(name)}`);
        columns.push(name);
      }
      return;
    }
    const [expr, name] =
      item.node === 'Alias'
        ? (expectOnly(item, ['alias', 'expr', 'hidden']),
          [asNode(item.expr, 'alias'), String(item.alias)] as const)
        : [item, columnName(item, ctx, index)];
    sql.push(`${expression(expr, scope, ctx)} AS ${identifier(name)}`);
    columns.push(name);
  });
  return { sql, columns };
}

interface Compiled {
  readonly sql: string;
  readonly columns: readonly string[];
  readonly limit: number | null;
  readonly offset: number | null;
}

function selectQuery(node: AstNode, ctx: Context, top: boolean): Compiled {
  expectOnly(node, [
    'select',
    'select_from',
    'where',
    'group_by',
    'having',
    'order_by',
    'limit',
    'offset',
    'distinct',
  ]);
  const items = nodesOf(node.select, 'SELECT');
  // Explicit aliases, and the hidden ones PostHog gives property fields (`properties.$browser` → `$browser`).
  const selectAliases = new Set(
    items.flatMap((item, index) => {
      if (item.node === 'Alias') return [String(item.alias)];
      return item.node === 'Field' && propertyPath(chainOf(item)) ? [columnName(item, ctx, index)] : [];
    }),
  );
  const source = from(node.select_from, ctx, selectAliases);
  const { scope } = source;
  const inner = scope.kind === 'subquery' ? [...scope.columns] : [];
  const list = selectList(items, scope, ctx, inner);
  let sql = `SELECT ${node.distinct === true ? 'DISTINCT ' : ''}${list.sql.join(', ')}${source.sql}`;
  if (isNode(node.where)) sql += ` WHERE ${expression(node.where, scope, ctx)}`;
  const groupBy = nodesOf(node.group_by, 'GROUP BY');
  if (groupBy.length > 0)
    sql += ` GROUP BY ${groupBy.map((item) => expression(item, scope, ctx)).join(', ')}`;
  if (isNode(node.having)) sql += ` HAVING ${expression(node.having, scope, ctx)}`;
  const orderBy = nodesOf(node.order_by, 'ORDER BY').map((item) => {
    expectOnly(item, ['expr', 'order']);
    return `${expression(asNode(item.expr, 'ORDER BY'), scope, ctx)} ${item.order === 'DESC' ? 'DESC' : 'ASC'}`;
  });
  if (orderBy.length > 0) sql += ` ORDER BY ${orderBy.join(', ')}`;
  const limit = node.limit === null || node.limit === undefined ? null : count(node.limit, 'LIMIT');
  const offset = node.offset === null || node.offset === undefined ? null : count(node.offset, 'OFFSET');
  if (top && limit === null) sql += ` LIMIT ${defaultLimit + 1} OFFSET ${offset ?? 0}`;
  else if (limit !== null) sql += ` LIMIT ${top ? Math.min(limit, maxLimit) : limit}`;
  if (offset !== null && !(top && limit === null)) sql += ` OFFSET ${offset}`;
  return { sql, columns: list.columns, limit, offset };
}

let parser: Promise<{ parseSelect(text: string): string }> | undefined;

/**
 * PostHog's HogQL parser (WebAssembly, embedded in its JavaScript), loaded once per container. Its
 * CommonJS build, by `require`: a function is bundled as CommonJS, where the ESM build's
 * `import.meta.url` is undefined and the parser fails to load.
 */
function hogqlParser(): Promise<{ parseSelect(text: string): string }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  parser ??= (require('@posthog/hogql-parser') as { default: typeof createHogQLParser }).default();
  return parser;
}

/** Parses `text` with PostHog's parser and checks the AST's bounds. */
export async function parseHogQL(text: string): Promise<AstNode> {
  checkTextBounds(text);
  const parsed = JSON.parse((await hogqlParser()).parseSelect(text)) as unknown;
  if (typeof parsed === 'object' && parsed !== null && (parsed as { error?: unknown }).error === true) {
    const message = (parsed as { message?: unknown }).message;
    throw new HogQLError('hogql_syntax_error', `Syntax error: ${String(message)}`);
  }
  checkBounds(parsed);
  return asNode(parsed, 'query');
}

/** Compiles a HogQL SELECT over the project's events to DuckDB SQL. */
export async function compileHogQL(text: string, options: CompileOptions): Promise<CompiledQuery> {
  if (!Number.isSafeInteger(options.projectId) || options.projectId <= 0)
    throw new Error(`compileHogQL: invalid project id ${options.projectId}`);
  const ast = await parseHogQL(text);
  if (ast.node === 'SelectSetQuery') throw new HogQLError('hogql_unsupported', 'UNION is not supported');
  if (ast.node !== 'SelectQuery') throw new HogQLError('hogql_unsupported', `${ast.node} is not supported`);
  const compiled = selectQuery(ast, { text, projectId: options.projectId }, true);
  const paginated = compiled.limit === null;
  return {
    sql: compiled.sql,
    columns: compiled.columns,
    paginated,
    limit: paginated ? defaultLimit : null,
    offset: paginated ? (compiled.offset ?? 0) : null,
  };
}
