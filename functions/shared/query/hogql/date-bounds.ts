import type { AstNode } from './ast';
import { isNode } from './ast';

/**
 * The lake's date partitions (UTC days) a HogQL query can read, from constant bounds on `timestamp`
 * in its WHERE (`timestamp >= '2024-03-04' AND timestamp < '2024-03-11'`, either side, or BETWEEN),
 * so the query function lists (and Athena scans) those partitions only. A superset: each bound's day
 * is widened by two days (the project's timezone offset, or the string's own, at most 14 hours either
 * way, and a bound's time of day); the exact comparison is still the query's own SQL.
 *
 * Undefined (every partition) unless the query reads `events` exactly once, directly (no sub-query
 * anywhere, whose rows the bounds would not limit), with a lower and an upper bound among the
 * conjuncts of its WHERE, and no select alias named `timestamp` (which the WHERE would then mean).
 */

const dayMs = 86_400_000;
const slackMs = 2 * dayMs;
/** The most partitions a range may name; a longer one lists every date. */
const maxDays = 3_700;
/** A datetime constant's day: `YYYY-MM-DD`, then nothing, a time or an ISO 8601 `T`. */
const datePrefix = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/;

/** The SELECT and set queries in `node`: walks own keys of plain objects only, once each. */
function countQueries(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((sum: number, item) => sum + countQueries(item), 0);
  if (!isNode(node)) return 0;
  const own = node.node === 'SelectQuery' || node.node === 'SelectSetQuery' ? 1 : 0;
  return Object.keys(node).reduce((sum, key) => sum + countQueries(node[key]), own);
}

/** The conjuncts of a WHERE: `a AND (b AND c)` is `[a, b, c]`. */
function conjuncts(node: unknown): AstNode[] {
  if (!isNode(node)) return [];
  if (node.node === 'And' && Array.isArray(node.exprs)) return node.exprs.flatMap(conjuncts);
  return [node];
}

/** A string constant's UTC day at midnight, in ms; undefined for anything else. */
function dayOf(node: unknown): number | undefined {
  if (!isNode(node) || node.node !== 'Constant' || typeof node.value !== 'string') return undefined;
  const day = datePrefix.exec(node.value);
  const ms = day ? Date.parse(`${day[1]}T00:00:00Z`) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

/** Which side of a comparison with `timestamp` on the left each operator bounds. */
const sides: Readonly<Record<string, 'lower' | 'upper'>> = {
  '>': 'lower',
  '>=': 'lower',
  '<': 'upper',
  '<=': 'upper',
};
const flipped: Readonly<Record<string, string>> = { '>': '<', '>=': '<=', '<': '>', '<=': '>=' };

export function hogqlPartitions(ast: AstNode): string[] | undefined {
  if (ast.node !== 'SelectQuery' || countQueries(ast) !== 1) return undefined;
  const from = ast.select_from;
  if (!isNode(from) || from.node !== 'JoinExpr' || from.next_join) return undefined;
  const table = from.table;
  if (!isNode(table) || table.node !== 'Field' || !Array.isArray(table.chain)) return undefined;
  if (table.chain.length !== 1 || table.chain[0] !== 'events') return undefined;
  const selects = Array.isArray(ast.select) ? ast.select : [];
  if (selects.some((item) => isNode(item) && item.node === 'Alias' && item.alias === 'timestamp'))
    return undefined;
  const tables = new Set(['events', ...(typeof from.alias === 'string' ? [from.alias] : [])]);
  const isTimestamp = (node: unknown): boolean => {
    if (!isNode(node) || node.node !== 'Field' || !Array.isArray(node.chain)) return false;
    const chain = node.chain;
    if (chain.length === 1) return chain[0] === 'timestamp';
    return chain.length === 2 && tables.has(String(chain[0])) && chain[1] === 'timestamp';
  };
  let lower = -Infinity;
  let upper = Infinity;
  const bound = (side: 'lower' | 'upper' | undefined, day: number | undefined): void => {
    if (day === undefined || side === undefined) return;
    if (side === 'lower') lower = Math.max(lower, day);
    else upper = Math.min(upper, day);
  };
  for (const expr of conjuncts(ast.where)) {
    if (expr.node === 'BetweenExpr' && expr.negated !== true && isTimestamp(expr.expr)) {
      bound('lower', dayOf(expr.low));
      bound('upper', dayOf(expr.high));
    } else if (expr.node === 'CompareOperation' && typeof expr.op === 'string') {
      if (isTimestamp(expr.left)) bound(sides[expr.op], dayOf(expr.right));
      else if (isTimestamp(expr.right) && Object.hasOwn(flipped, expr.op))
        bound(sides[flipped[expr.op]!], dayOf(expr.left));
    }
  }
  if (!Number.isFinite(lower) || !Number.isFinite(upper)) return undefined;
  const first = lower - slackMs;
  const last = upper + slackMs;
  if (last < first) return [];
  const count = (last - first) / dayMs + 1;
  if (count > maxDays) return undefined;
  return Array.from({ length: count }, (_, index) =>
    new Date(first + index * dayMs).toISOString().slice(0, 10),
  );
}
