import * as z from 'zod';
import { chainToElements } from '../shared/domain/elements';
import type { Person } from '../shared/domain/persons';
import { ValidationError } from '../shared/http/errors';
import { runHogQL } from '../shared/query/execute';
import type { AstNode } from '../shared/query/hogql/ast';
import { isNode } from '../shared/query/hogql/ast';
import { compileSelect, maxLimit, parseHogQL } from '../shared/query/hogql/compile';
import { eventsStarColumns } from '../shared/query/hogql/events-table';
import { isAggregation } from '../shared/query/hogql/functions';
import { propertiesSql } from '../shared/query/insights/property-filters';
import { properties as propertiesSchema } from '../shared/query/insights/schema';
import type { QueryContext, QueryPlan } from './plan';
import { parseNode } from './plan';

/**
 * PostHog's `EventsQuery` (posthog/hogql_queries/events_query_runner.py): a select list, filters and an
 * order, each a HogQL expression given as text. Each text is parsed alone by PostHog's parser and the
 * parts assembled into one SELECT's AST over `events`, which the HogQL compiler compiles as any HogQL
 * query (the project's rows only, allow-listed functions): no text reaches SQL.
 */

/** What one EventsQuery may hold: each text is also bounded by the parser's own bounds. */
const eventsQueryBounds = { select: 50, where: 50, orderBy: 10, events: 50, text: 4_000 } as const;

/** What PostHog's EventsQueryRunner answers when `limit` is not given (its paginator's default). */
const defaultLimit = 100;

const hogqlText = z.string().min(1).max(eventsQueryBounds.text);
const dateText = z.string().min(1).max(64);

/**
 * The fields Flock runs; strict as PostHog's model, so a filter Flock does not apply (`actionId`,
 * `personId`, `source`, `filterTestAccounts: true`…) is a 400 naming it, never silently dropped.
 */
const eventsQuerySchema = z.strictObject({
  kind: z.literal('EventsQuery'),
  select: z.array(hogqlText).max(eventsQueryBounds.select),
  where: z.array(hogqlText).max(eventsQueryBounds.where).nullish(),
  orderBy: z.array(hogqlText).max(eventsQueryBounds.orderBy).nullish(),
  event: z.string().min(1).max(400).nullish(),
  events: z.array(z.string().min(1).max(400)).max(eventsQueryBounds.events).nullish(),
  properties: propertiesSchema,
  fixedProperties: propertiesSchema,
  after: dateText.nullish(),
  before: dateText.nullish(),
  limit: z.number().int().min(1).nullish(),
  offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullish(),
  filterTestAccounts: z.literal(false).nullish(),
  // Display and bookkeeping fields PostHog's clients send along; they do not change the result.
  modifiers: z.looseObject({}).nullish(),
  tags: z.looseObject({}).nullish(),
  response: z.unknown().optional(),
  version: z.number().nullish(),
});
type EventsQuery = z.output<typeof eventsQuerySchema>;

/**
 * What `"*"` answers per row besides `team_id` and `person_mode`, in PostHog's order
 * (`SELECT_STAR_FROM_EVENTS_FIELDS`): the columns of HogQL's `SELECT *` up to `created_at`.
 */
const starFields = eventsStarColumns.slice(0, eventsStarColumns.indexOf('created_at') + 1);
/** ClickHouse's type of `events.person_mode`, the last field of the `*` tuple. */
const personModeType = "Enum8('full' = 0, 'propertyless' = 1, 'force_upgrade' = 2)";

/** One requested column: which compiled columns hold it. */
type Slot =
  | { readonly kind: 'star'; readonly at: number }
  | { readonly kind: 'person'; readonly at: number }
  | { readonly kind: 'expr'; readonly at: number };

const field = (...chain: string[]): AstNode => ({ node: 'Field', chain });
const constant = (value: string | number): AstNode => ({ node: 'Constant', value });
const call = (name: string, ...args: AstNode[]): AstNode => ({ node: 'Call', name, args });
const and = (exprs: AstNode[]): AstNode | null =>
  exprs.length === 0 ? null : exprs.length === 1 ? exprs[0]! : { node: 'And', exprs };

/** A select text without its ` -- Label` comment, as PostHog compares it (`person`, `timestamp`). */
const bare = (text: string): string => text.split('--')[0]!.trim();

/** Whether `node` calls an aggregation outside any sub-query (PostHog's `has_aggregation`). */
function hasAggregation(node: AstNode): boolean {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (isNode(value)) {
      if (value.node === 'SelectQuery' || value.node === 'SelectSetQuery') continue;
      if (value.node === 'Call' && typeof value.name === 'string' && isAggregation(value.name)) return true;
    }
    stack.push(
      ...(Array.isArray(value) ? (value as unknown[]) : Object.values(value as Record<string, unknown>)),
    );
  }
  return false;
}

/** HogQL's interval function of a relative date's unit (`-24h`, `-7d`, `-1m`…), and its multiple. */
const relativeUnits: Readonly<Record<string, readonly [string, number]>> = {
  s: ['toIntervalSecond', 1],
  M: ['toIntervalMinute', 1],
  h: ['toIntervalHour', 1],
  d: ['toIntervalDay', 1],
  w: ['toIntervalWeek', 1],
  m: ['toIntervalMonth', 1],
  q: ['toIntervalMonth', 3],
  y: ['toIntervalYear', 1],
};
const relativeDate = /^-(\d{1,6})([sMhdwmqy])$/;
const isoDate =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * `after`/`before` as a HogQL expression (PostHog's relative_date_parse without truncation): `-24h`
 * is now minus 24 hours, calendar units in the project's timezone; an ISO date or datetime is a
 * constant compared with `timestamp` (a naive one in the project's timezone).
 */
function dateExpr(value: string, attr: string): AstNode {
  const relative = relativeDate.exec(value);
  if (relative) {
    const [fn, multiple] = relativeUnits[relative[2]!]!;
    return {
      node: 'ArithmeticOperation',
      op: '-',
      left: call('now'),
      right: call(fn, constant(Number(relative[1]) * multiple)),
    };
  }
  if (isoDate.test(value)) return constant(value);
  throw new ValidationError('invalid_input', `Unrecognised date: ${value}`, attr);
}

/** The select list's expressions and where each requested column lands. */
async function selectList(select: readonly string[]): Promise<{ exprs: AstNode[]; slots: Slot[] }> {
  const exprs: AstNode[] = [];
  const slots: Slot[] = [];
  for (const text of select) {
    if (text === '*') {
      slots.push({ kind: 'star', at: exprs.length });
      exprs.push(...starFields.map((name) => field(name)));
    } else if (bare(text) === 'person') {
      slots.push({ kind: 'person', at: exprs.length });
      exprs.push(field('distinct_id'));
    } else {
      slots.push({ kind: 'expr', at: exprs.length });
      exprs.push(await parseHogQL(text, 'expr'));
    }
  }
  return { exprs, slots };
}

/** PostHog's default order when `orderBy` is not given. */
function defaultOrder(select: readonly string[], exprs: readonly AstNode[]): AstNode[] {
  const order = (expr: AstNode, direction: 'ASC' | 'DESC'): AstNode[] => [
    { node: 'OrderExpr', expr, order: direction },
  ];
  if (select.includes('count()')) return order(call('count'), 'DESC');
  const aggregation = exprs.find(hasAggregation);
  if (aggregation)
    return order(aggregation.node === 'Alias' ? field(String(aggregation.alias)) : aggregation, 'DESC');
  if (select.includes('timestamp')) return order(field('timestamp'), 'DESC');
  const first = exprs[0];
  return first ? order(first.node === 'Alias' ? field(String(first.alias)) : first, 'ASC') : [];
}

/** A HogQL string literal, for the `hogql` text the response shows. */
const hogqlString = (value: string): string => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/**
 * The HogQL text PostHog's response shows, from the parts as written (each parsed alone as one
 * expression, so parenthesised it reads the same). Null when property filters apply: they run as
 * compiled SQL and have no HogQL text here.
 */
function hogqlOf(query: EventsQuery, limit: number, offset: number): string | null {
  if ((query.properties ?? query.fixedProperties) != null) return null;
  const select = (query.select.length === 0 ? ['*'] : query.select).map((text) =>
    text === '*' ? `tuple(${starFields.join(', ')})` : bare(text) === 'person' ? 'distinct_id' : bare(text),
  );
  const events = [query.event, ...(query.events ?? [])].filter((name) => name != null);
  const where = [
    ...(query.where ?? []).map((text) => `(${bare(text)})`),
    ...(events.length === 1 ? [`event = ${hogqlString(events[0]!)}`] : []),
    ...(events.length > 1 ? [`event IN (${events.map(hogqlString).join(', ')})`] : []),
    `timestamp < ${query.before ? hogqlString(query.before) : 'now() + toIntervalSecond(5)'}`,
    ...((query.after ?? '-24h') === 'all' ? [] : [`timestamp > ${hogqlString(query.after ?? '-24h')}`]),
  ];
  return (
    `SELECT ${select.join(', ')} FROM events WHERE ${where.join(' AND ')}` +
    (query.orderBy?.length ? ` ORDER BY ${query.orderBy.map(bare).join(', ')}` : '') +
    ` LIMIT ${limit + 1} OFFSET ${offset}`
  );
}

/** The persons of a page's distinct ids, by distinct id (the project's, from the persons table). */
export type PersonsOf = (distinctIds: readonly string[]) => Promise<ReadonlyMap<string, Person>>;

/** `EventsQuery`: PostHog's `EventsQueryResponse` fields. */
export async function planEventsQuery(node: unknown, context: QueryContext): Promise<QueryPlan> {
  const query = parseNode(node, eventsQuerySchema);
  const select = query.select.length === 0 ? ['*'] : query.select;
  const { exprs, slots } = await selectList(select);
  const aggregated = exprs.some(hasAggregation);

  const conditions: AstNode[] = [];
  for (const text of query.where ?? []) conditions.push(await parseHogQL(text, 'expr'));
  const events = [query.event, ...(query.events ?? [])].filter((name) => name != null);
  if (events.length === 1)
    conditions.push({
      node: 'CompareOperation',
      op: '==',
      left: field('event'),
      right: constant(events[0]!),
    });
  if (events.length > 1)
    conditions.push({
      node: 'CompareOperation',
      op: 'in',
      left: field('event'),
      right: { node: 'Tuple', exprs: events.map(constant) },
    });
  const before = query.before
    ? dateExpr(query.before, 'query__before')
    : {
        node: 'ArithmeticOperation',
        op: '+',
        left: call('now'),
        right: call('toIntervalSecond', constant(5)),
      };
  conditions.push({ node: 'CompareOperation', op: '<', left: field('timestamp'), right: before });
  const after = query.after ?? '-24h';
  if (after !== 'all')
    conditions.push({
      node: 'CompareOperation',
      op: '>',
      left: field('timestamp'),
      right: dateExpr(after, 'query__after'),
    });

  const orderBy = query.orderBy
    ? await Promise.all(query.orderBy.map((text) => parseHogQL(text, 'order')))
    : defaultOrder(
        select.map((text) => (bare(text) === 'person' ? 'distinct_id' : text)),
        exprs,
      );
  const ast: AstNode = {
    node: 'SelectQuery',
    select: exprs,
    select_from: { node: 'JoinExpr', table: field('events') },
    where: and(conditions.filter((condition) => !hasAggregation(condition))),
    having: and(conditions.filter(hasAggregation)),
    // An aliased column is grouped by its alias (the compiler reads no Alias outside the select list).
    group_by: aggregated
      ? exprs
          .filter((expr) => !hasAggregation(expr))
          .map((expr) => (expr.node === 'Alias' ? field(String(expr.alias)) : expr))
      : null,
    order_by: orderBy,
  };
  const limit = Math.min(query.limit ?? defaultLimit, maxLimit);
  const offset = query.offset ?? 0;
  const filters = [query.properties, query.fixedProperties]
    .map((properties, index) =>
      propertiesSql(properties, index === 0 ? 'query__properties' : 'query__fixedProperties'),
    )
    .filter((sql) => sql !== 'true');
  const compiled = compileSelect(ast, {
    projectId: context.projectId,
    text: '',
    page: { limit, offset },
    ...(filters.length > 0 ? { filterSql: filters.join(' AND ') } : {}),
  });
  const hogql = hogqlOf(query, limit, offset);
  return {
    hogql,
    run: async (connection) => {
      const result = await runHogQL(connection, compiled, context.timezone);
      const types = result.types.map(([, type]) => type);
      const personIds = slots.some((slot) => slot.kind === 'person')
        ? [
            ...new Set(
              result.results.flatMap((row) =>
                slots.filter((s) => s.kind === 'person').map((s) => String(row[s.at])),
              ),
            ),
          ]
        : [];
      const persons = personIds.length > 0 ? await context.personsOf(personIds) : new Map<string, Person>();
      const results = result.results.map((row) =>
        slots.map((slot) => {
          if (slot.kind === 'star')
            return starObject(row.slice(slot.at, slot.at + starFields.length), context);
          if (slot.kind === 'person') return personObject(String(row[slot.at]), persons);
          return row[slot.at];
        }),
      );
      return {
        columns: select.map((text, index) => {
          const slot = slots[index]!;
          const expr = exprs[slot.at]!;
          return slot.kind === 'expr' && expr.node === 'Alias' ? String(expr.alias) : text;
        }),
        types: slots.map((slot) =>
          slot.kind === 'star'
            ? `Tuple(${[...types.slice(slot.at, slot.at + 4), 'Int64', ...types.slice(slot.at + 4, slot.at + starFields.length), personModeType].join(', ')})`
            : types[slot.at]!,
        ),
        results,
        hasMore: result.hasMore,
        limit,
        offset,
        nextCursor: nextCursor(result.hasMore === true, aggregated, orderBy, results, select),
      };
    },
  };
}

/** A `*` column: PostHog's event object (`properties` parsed, `elements` when there is a chain). */
function starObject(values: readonly unknown[], context: QueryContext): Record<string, unknown> {
  const [uuid, event, properties, timestamp, distinctId, elementsChain, createdAt] = values;
  const parsed = JSON.parse(typeof properties === 'string' ? properties : '{}') as Record<string, unknown>;
  return {
    uuid,
    event,
    properties: parsed,
    timestamp,
    team_id: context.projectId,
    distinct_id: distinctId,
    elements_chain: elementsChain,
    created_at: createdAt,
    // The ingestion rule PostHog stores: an event sent with `$process_person_profile: false` is personless.
    person_mode: parsed.$process_person_profile === false ? 'propertyless' : 'full',
    ...(typeof elementsChain === 'string' && elementsChain !== ''
      ? { elements: chainToElements(elementsChain) }
      : {}),
  };
}

/** A `person` column: the person of the distinct id, or only the distinct id when it has none. */
function personObject(distinctId: string, persons: ReadonlyMap<string, Person>): Record<string, unknown> {
  const person = persons.get(distinctId);
  if (!person) return { distinct_id: distinctId };
  return {
    uuid: person.uuid,
    created_at: person.createdAt,
    properties: person.properties,
    distinct_id: distinctId,
  };
}

/** PostHog's `nextCursor`: the last row's timestamp, when ordered by timestamp first and there is more. */
function nextCursor(
  hasMore: boolean,
  aggregated: boolean,
  orderBy: readonly AstNode[],
  results: readonly unknown[][],
  select: readonly string[],
): string | null {
  const first = orderBy[0]?.expr;
  const byTimestamp =
    isNode(first) && first.node === 'Field' && JSON.stringify(first.chain) === '["timestamp"]';
  const last = results.at(-1);
  if (!hasMore || aggregated || !byTimestamp || !last) return null;
  const star = select.indexOf('*');
  if (star !== -1) return String((last[star] as { timestamp: unknown }).timestamp);
  const column = select.findIndex((text) => bare(text) === 'timestamp');
  return column === -1 ? null : String(last[column]);
}
