import { useTimezone } from '../execute';
import type { DuckDBConnection } from '@duckdb/node-api';
import { eventsRelation } from '../hogql/events-table';
import { stringLiteral } from '../hogql/sql';
import type { BreakdownFilter, EventsNode } from './schema';
import { propertyExpression, propertiesSql } from './property-filters';

/** What an insight query runs for: the project, its timezone (IANA name) and the instant of `now`. */
export interface InsightContext {
  readonly projectId: number;
  readonly timezone: string;
  readonly now: Date;
}

/** PostHog's breakdown sentinels (posthog/hogql_queries/insights/trends/breakdown.py). */
export const breakdownOther = '$$_posthog_breakdown_other_$$';
export const breakdownNull = '$$_posthog_breakdown_null_$$';

/** The actor of an event: its person, or its distinct id when the lake row has no person id. */
export const actorSql = 'coalesce("person_id", "distinct_id")';

/**
 * The project's events, the only relation insight SQL reads: `eventsRelation` keeps the project's
 * rows; the session timezone is the project's, so buckets and dates are local.
 */
export async function prepareConnection(
  connection: DuckDBConnection,
  context: InsightContext,
): Promise<string> {
  if (!Number.isSafeInteger(context.projectId)) throw new Error('projectId must be a safe integer');
  await useTimezone(connection, context.timezone);
  return eventsRelation(context.projectId);
}

/** Whether an event is the node's: its event name (any event when null) and its own properties. */
export function nodeSql(node: EventsNode, attr: string): string {
  const event =
    node.event === null || node.event === undefined ? 'true' : `"event" = ${stringLiteral(node.event)}`;
  return `(${event} AND ${propertiesSql(node.properties, `${attr}__properties`)})`;
}

/** The breakdown property's value as text, or null without a breakdown. */
export function breakdownValueSql(breakdown: BreakdownFilter): string | null {
  if (!breakdown?.breakdown) return null;
  return propertyExpression(breakdown.breakdown_type === 'person' ? 'person' : 'event', breakdown.breakdown);
}
