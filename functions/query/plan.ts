import type { DuckDBConnection } from '@duckdb/node-api';
import type { ZodType } from 'zod';
import { ValidationError, validationErrorFromZod } from '../shared/http/errors';
import type { HogQLResult } from '../shared/query/execute';
import { runHogQL } from '../shared/query/execute';
import { compileSelect, parseHogQL } from '../shared/query/hogql/compile';
import { hogqlPartitions } from '../shared/query/hogql/date-bounds';
import { trinoDialect } from '../shared/query/hogql/trino';
import { funnelsPartitions, trendsPartitions } from '../shared/query/insights/date-partitions';
import { runFunnels } from '../shared/query/insights/funnels';
import { funnelsQuerySchema, parseInsightQuery, trendsQuerySchema } from '../shared/query/insights/schema';
import { runTrends } from '../shared/query/insights/trends';
import type { AthenaTarget } from './athena';
import { runOnAthena } from './athena';
import type { PersonsOf } from './events-query';
import { planEventsQuery } from './events-query';
import type { QueryNode } from './request';
import { hogqlQuerySchema, queryNodeSchema } from './request';

/** What every kind is run with. */
export interface QueryContext {
  readonly projectId: number;
  /** The project's IANA timezone. */
  readonly timezone: string;
  readonly now: Date;
  /** The persons of distinct ids (EventsQuery's `person` column). */
  readonly personsOf: PersonsOf;
}

/** A query ready to run: validated and compiled before any lake file is listed or read. */
export interface QueryPlan {
  /** The HogQL the response shows: null for an insight, which Flock compiles without HogQL text. */
  readonly hogql: string | null;
  /** The UTC dates whose partitions the query can touch; absent: every date of the project. */
  readonly dates?: readonly string[];
  /** Runs on a connection whose `events` relation holds the project's files. */
  run(connection: DuckDBConnection): Promise<Record<string, unknown>>;
  /**
   * Runs on Athena over the lake's Glue table within `timeoutMs`; absent for a kind Flock runs on
   * DuckDB only (the insights, compiled to DuckDB's SQL).
   */
  athena?(target: AthenaTarget, timeoutMs: number): Promise<Record<string, unknown>>;
}

/** Display nodes PostHog runs the `source` of, answering the source's response unchanged. */
const displayNodes = new Set(['InsightVizNode', 'DataVisualizationNode', 'DataTableNode']);
/** Display nodes one request may nest. */
const maxDisplayNesting = 4;

/** `value` checked against `schema`, a 400 naming the field (under `query`) otherwise. */
export function parseNode<S extends ZodType>(value: unknown, schema: S): S['_output'] {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const error = validationErrorFromZod(parsed.error);
    throw new ValidationError(error.code, error.detail, error.attr ? `query__${error.attr}` : 'query');
  }
  return parsed.data;
}

/** The node a request runs: its display nodes unwrapped. */
function runnableNode(node: QueryNode): QueryNode {
  let current = node;
  for (let depth = 0; displayNodes.has(current.kind); depth++) {
    if (depth >= maxDisplayNesting)
      throw new ValidationError(
        'invalid_input',
        `More than ${maxDisplayNesting} nested display nodes`,
        'query',
      );
    if (current.source === undefined)
      throw new ValidationError('required', `${current.kind} needs a source`, 'query__source');
    current = parseNode(current.source, queryNodeSchema);
  }
  return current;
}

/** Plans `node`: a 400 for a kind Flock does not run or a query that is not valid. */
export async function planQuery(node: QueryNode, context: QueryContext): Promise<QueryPlan> {
  const query = runnableNode(node);
  if (query.kind === 'HogQLQuery') return planHogQL(query, context);
  if (query.kind === 'TrendsQuery') {
    // Checked here too, so a bad insight is a 400 before any lake file is listed or read.
    const trends = parseInsightQuery(trendsQuerySchema, query);
    const dates = trendsPartitions(trends, context.now);
    return { hogql: null, dates, run: (connection) => runTrends(connection, query, context) };
  }
  if (query.kind === 'FunnelsQuery') {
    const dates = funnelsPartitions(parseInsightQuery(funnelsQuerySchema, query), context.now);
    return { hogql: null, dates, run: (connection) => runFunnels(connection, query, context) };
  }
  if (query.kind === 'EventsQuery') return planEventsQuery(query, context);
  throw new ValidationError('invalid_input', `Unsupported query kind: ${query.kind}`, 'query');
}

/** `HogQLQuery`: PostHog's `HogQLQueryResponse` fields. */
async function planHogQL(node: QueryNode, context: QueryContext): Promise<QueryPlan> {
  const { query: text } = parseNode(node, hogqlQuerySchema);
  const ast = await parseHogQL(text);
  const compiled = compileSelect(ast, { projectId: context.projectId, text });
  // Constant bounds on `timestamp` name the partitions to list, and to scan on Athena.
  const dates = hogqlPartitions(ast);
  const range = dates?.length ? { from: dates[0]!, to: dates.at(-1)! } : undefined;
  const response = (result: HogQLResult): Record<string, unknown> => ({
    ...result,
    clickhouse: null,
    explain: null,
    metadata: null,
    query: text,
  });
  return {
    hogql: text,
    ...(dates ? { dates } : {}),
    run: async (connection) => response(await runHogQL(connection, compiled, context.timezone)),
    athena: async (target, timeoutMs) => {
      const dialect = trinoDialect({ ...target, timezone: context.timezone, dates: range });
      const trino = compileSelect(ast, { projectId: context.projectId, text, dialect });
      return response(await runOnAthena(trino, target, context.timezone, timeoutMs));
    },
  };
}
