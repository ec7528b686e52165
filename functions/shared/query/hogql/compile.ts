import type createHogQLParser from '@posthog/hogql-parser';
import type { AstNode } from './ast';
import { checkBounds, checkTextBounds, expectOnly, isNode } from './ast';
import type { OperandKind, SqlDialect } from './dialect';
import { duckDbDialect } from './dialect';
import { HogQLError } from './errors';
import { eventsStarColumns, isEventsColumn, personPropertiesColumn, propertySql } from './events-table';
import { resultKindOf } from './functions';
import { identifier, stringLiteral } from './sql';

/**
 * HogQL → SQL (DuckDB's, or Trino's for Athena: ./dialect.ts), from the AST of PostHog's own parser (never the query text). Everything the
 * output holds is produced here: identifiers are always quoted, strings always literals, calls only
 * those of the allow-list (./functions.ts), tables only `events` (through the project's filter,
 * ./events-table.ts) and sub-queries. Whatever else the AST holds is a 400 naming it.
 */

/** Rows a query returns when it sets no LIMIT (PostHog's HogQLHasMorePaginator). */
export const defaultLimit = 100;
/** The most rows a top-level LIMIT may ask for (PostHog clamps to it silently). */
export const maxLimit = 50_000;

export interface CompiledQuery {
  /** SQL over the caller's `events` relation (DuckDB), or over the lake's table (Trino). */
  readonly sql: string;
  /** The result's column names, PostHog's naming rules (posthog/hogql/resolver.py). */
  readonly columns: readonly string[];
  /**
   * Each column's ClickHouse type when the AST decides it rather than DuckDB, else null: a property
   * read (`properties.$browser`, `person.properties.email`) is `Nullable(String)`, as PostHog types it.
   */
  readonly types: readonly (string | null)[];
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
  /** The engine the SQL is for: DuckDB unless said otherwise. */
  readonly dialect?: SqlDialect;
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
  readonly dialect: SqlDialect;
  /** The top-level page asked for (EventsQuery's `limit`/`offset`), instead of a LIMIT clause. */
  readonly page?: Page;
  /** A condition of trusted SQL (built by Flock, e.g. property filters) AND-ed into the top WHERE. */
  readonly filterSql?: string;
}

/** A page of the top-level result: `limit` rows from `offset`, one more asked for to tell `hasMore`. */
export interface Page {
  readonly limit: number;
  readonly offset: number;
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

function field(node: AstNode, scope: Scope, ctx: Context): string {
  const chain = unqualified(chainOf(node), scope);
  const name = chain.join('.');
  if (chain.length === 1 && scope.selectAliases.has(name)) return identifier(name);
  if (scope.kind === 'subquery' && chain.length === 1 && scope.columns.has(name)) return identifier(name);
  if (scope.kind === 'events') {
    const property = propertyPath(chain);
    if (property) return propertySql(property.source, property.keys, ctx.dialect.jsonString);
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

/** HogQL's DateTime columns of `events`. */
const datetimeColumns = new Set(['timestamp', 'created_at']);

/** What the compiler knows of an operand's type: enough for a dialect that does not convert implicitly. */
function kindOf(node: AstNode, scope: Scope): OperandKind {
  if (node.node === 'Constant')
    return typeof node.value === 'string'
      ? 'string-constant'
      : typeof node.value === 'number'
        ? 'number-constant'
        : 'other';
  if (node.node === 'Call' && typeof node.name === 'string') return resultKindOf(node.name) ?? 'other';
  if (node.node === 'Field' && scope.kind === 'events' && Array.isArray(node.chain)) {
    const chain = unqualified(node.chain.map(String), scope);
    if (chain.length === 1 && datetimeColumns.has(chain[0]!) && !scope.selectAliases.has(chain[0]!))
      return 'datetime';
    if (propertyPath(chain)) return 'text';
  }
  return 'other';
}

/** An operand compiled as the dialect compares it with an operand of kind `other`. */
function operand(node: AstNode, other: OperandKind, scope: Scope, ctx: Context): string {
  return ctx.dialect.operand(expression(node, scope, ctx), kindOf(node, scope), other, node.value);
}

/** Two operands compiled, each as the dialect compares it with the other. */
function operands(left: AstNode, right: AstNode, scope: Scope, ctx: Context): [string, string] {
  return [operand(left, kindOf(right, scope), scope, ctx), operand(right, kindOf(left, scope), scope, ctx)];
}

function compare(node: AstNode, scope: Scope, ctx: Context): string {
  expectOnly(node, ['left', 'right', 'op', 'is_null_comparison_style']);
  const op =
    typeof node.op === 'string' && Object.hasOwn(comparisons, node.op) ? comparisons[node.op]! : undefined;
  if (op === undefined)
    throw new HogQLError('hogql_unsupported', `Operator ${String(node.op)} is not supported`);
  const leftNode = asNode(node.left, 'comparison');
  const rightNode = asNode(node.right, 'comparison');
  if (op === 'IN' || op === 'NOT IN')
    return `(${expression(leftNode, scope, ctx)} ${op} ${inList(rightNode, scope, ctx)})`;
  // HogQL compares with NULL as ClickHouse's isNull/isNotNull (posthog/hogql/printer.py).
  if (rightNode.node === 'Constant' && rightNode.value === null && (op === '=' || op === '<>'))
    return `(${expression(leftNode, scope, ctx)} IS ${op === '=' ? '' : 'NOT '}NULL)`;
  const [left, right] = operands(leftNode, rightNode, scope, ctx);
  if (op === 'ILIKE' || op === 'NOT ILIKE') return ctx.dialect.ilike(left, right, op === 'NOT ILIKE');
  return `(${left} ${op} ${right})`;
}

function call(node: AstNode, scope: Scope, ctx: Context): string {
  expectOnly(node, ['name', 'args', 'distinct', 'params']);
  const args = nodesOf(node.args, 'arguments');
  return ctx.dialect.call({
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
      return field(node, scope, ctx);
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
      const valueNode = asNode(node.expr, 'BETWEEN');
      const lowNode = asNode(node.low, 'BETWEEN');
      const [value, low] = operands(valueNode, lowNode, scope, ctx);
      const high = operand(asNode(node.high, 'BETWEEN'), kindOf(valueNode, scope), scope, ctx);
      return `(${value} ${node.negated === true ? 'NOT ' : ''}BETWEEN ${low} AND ${high})`;
    }
    case 'TypeCast': {
      expectOnly(node, ['expr', 'type_name']);
      const cast = ctx.dialect.cast(
        expression(asNode(node.expr, 'cast'), scope, ctx),
        String(node.type_name).toLowerCase(),
      );
      if (cast === undefined)
        throw new HogQLError('hogql_unsupported', `Cast to ${String(node.type_name)} is not supported`);
      return cast;
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
      sql: ` FROM ${ctx.dialect.events(ctx.projectId)} AS ${identifier(alias ?? 'events')}`,
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
  const text = typeof start === 'number' && typeof end === 'number' ? ctx.text.slice(start, end) : '';
  return text === '' ? `column_${index + 1}` : text;
}

function selectList(
  items: AstNode[],
  scope: Scope,
  ctx: Context,
  inner: readonly string[],
): { sql: string[]; columns: string[]; types: (string | null)[] } {
  const sql: string[] = [];
  const columns: string[] = [];
  const types: (string | null)[] = [];
  items.forEach((item, index) => {
    if (item.node === 'Field' && unqualified(chainOf(item), scope).join('.') === '*') {
      const names =
        scope.kind === 'events' ? eventsStarColumns : scope.kind === 'subquery' ? inner : undefined;
      if (names === undefined) throw new HogQLError('hogql_unsupported', 'SELECT * needs a FROM');
      for (const name of names) {
        sql.push(`${field({ node: 'Field', chain: [name] }, scope, ctx)} AS ${identifier(name)}`);
        columns.push(name);
        types.push(null);
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
    types.push(isPropertyRead(expr, scope) ? 'Nullable(String)' : null);
  });
  return { sql, columns, types };
}

/** Whether `node` reads a property of the events in scope (text, or null when the event has none). */
function isPropertyRead(node: AstNode, scope: Scope): boolean {
  if (node.node !== 'Field' || scope.kind !== 'events') return false;
  const chain = unqualified(chainOf(node), scope);
  return !(chain.length === 1 && scope.selectAliases.has(chain[0]!)) && propertyPath(chain) !== null;
}

interface Compiled {
  readonly sql: string;
  readonly columns: readonly string[];
  readonly types: readonly (string | null)[];
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
  const conditions = [
    ...(isNode(node.where) ? [expression(node.where, scope, ctx)] : []),
    ...(top && ctx.filterSql !== undefined ? [`(${ctx.filterSql})`] : []),
  ];
  if (conditions.length > 0) sql += ` WHERE ${conditions.join(' AND ')}`;
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
  if (top && ctx.page !== undefined) {
    if (limit !== null || offset !== null)
      throw new HogQLError('hogql_unsupported', 'LIMIT and OFFSET come from the query, not its text');
    sql += ctx.dialect.page(ctx.page.limit + 1, ctx.page.offset);
  } else if (top && limit === null) sql += ctx.dialect.page(defaultLimit + 1, offset ?? 0);
  else sql += ctx.dialect.page(limit === null ? null : top ? Math.min(limit, maxLimit) : limit, offset);
  return { sql, columns: list.columns, types: list.types, limit, offset };
}

/** The parser's entry points Flock calls; each answers the AST (or the error) as JSON text. */
interface HogQLParser {
  parseSelect(text: string): string;
  parseExpr(text: string): string;
  parseOrderExpr(text: string): string;
}

let parser: Promise<HogQLParser> | undefined;

/**
 * PostHog's HogQL parser (WebAssembly, embedded in its JavaScript), loaded once per container. Its
 * CommonJS build, by `require`: a function is bundled as CommonJS, where the ESM build's
 * `import.meta.url` is undefined and the parser fails to load.
 */
function hogqlParser(): Promise<HogQLParser> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  parser ??= (require('@posthog/hogql-parser') as { default: typeof createHogQLParser }).default();
  return parser;
}

/** Whether `text` holds only whitespace and comments (line and block comments): one linear pass. */
function onlyComments(text: string): boolean {
  let index = 0;
  while (index < text.length) {
    if (/\s/.test(text[index]!)) index++;
    else if (text.startsWith('--', index)) {
      const end = text.indexOf('\n', index);
      index = end === -1 ? text.length : end;
    } else if (text.startsWith('/*', index)) {
      const end = text.indexOf('*/', index + 2);
      if (end === -1) return false;
      index = end + 2;
    } else return false;
  }
  return true;
}

/** What the parser parses: a whole SELECT, one expression, or one ORDER BY item (`x DESC`). */
export type ParseRule = 'select' | 'expr' | 'order';

/** Parses `text` with PostHog's parser (by `rule`, a SELECT by default) and checks the AST's bounds. */
export async function parseHogQL(text: string, rule: ParseRule = 'select'): Promise<AstNode> {
  checkTextBounds(text);
  const parser = await hogqlParser();
  const output =
    rule === 'select'
      ? parser.parseSelect(text)
      : rule === 'expr'
        ? parser.parseExpr(text)
        : parser.parseOrderExpr(text);
  const parsed = JSON.parse(output) as unknown;
  if (typeof parsed === 'object' && parsed !== null && (parsed as { error?: unknown }).error === true) {
    const message = (parsed as { message?: unknown }).message;
    throw new HogQLError('hogql_syntax_error', `Syntax error: ${String(message)}`);
  }
  checkBounds(parsed);
  const node = asNode(parsed, 'query');
  // The parser's ORDER BY rule stops after one item and ignores the rest (`x DESC; drop …`): what
  // follows it must be blank or comments, or the text is refused rather than partly read.
  const end = node.end?.offset;
  if (rule === 'order' && typeof end === 'number' && !onlyComments(text.slice(end)))
    throw new HogQLError(
      'hogql_syntax_error',
      `Syntax error: unexpected text after the expression: ${text.slice(end, end + 40)}`,
    );
  return node;
}

/** Compiles a HogQL SELECT over the project's events to SQL of `options.dialect` (DuckDB by default). */
export async function compileHogQL(text: string, options: CompileOptions): Promise<CompiledQuery> {
  return compileSelect(await parseHogQL(text), { ...options, text });
}

/** What `compileSelect` takes besides the project. */
export interface SelectOptions extends CompileOptions {
  /** The text the AST's offsets point into (for column names); '' for an AST assembled from parts. */
  readonly text: string;
  readonly page?: Page;
  readonly filterSql?: string;
}

/**
 * Compiles a SELECT's AST: one PostHog's parser produced, or one assembled from parsed parts (an
 * EventsQuery's expressions, each parsed alone). The bounds are checked again on the whole.
 */
export function compileSelect(ast: AstNode, options: SelectOptions): CompiledQuery {
  if (!Number.isSafeInteger(options.projectId) || options.projectId <= 0)
    throw new Error(`compileHogQL: invalid project id ${options.projectId}`);
  checkBounds(ast);
  if (ast.node === 'SelectSetQuery') throw new HogQLError('hogql_unsupported', 'UNION is not supported');
  if (ast.node !== 'SelectQuery') throw new HogQLError('hogql_unsupported', `${ast.node} is not supported`);
  const { text, projectId, page, filterSql } = options;
  const dialect = options.dialect ?? duckDbDialect;
  const compiled = selectQuery(ast, { text, projectId, dialect, page, filterSql }, true);
  if (page !== undefined)
    return { sql: compiled.sql, columns: compiled.columns, types: compiled.types, paginated: true, ...page };
  const paginated = compiled.limit === null;
  return {
    sql: compiled.sql,
    columns: compiled.columns,
    types: compiled.types,
    paginated,
    limit: paginated ? defaultLimit : null,
    offset: paginated ? (compiled.offset ?? 0) : null,
  };
}
