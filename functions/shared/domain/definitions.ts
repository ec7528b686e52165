import { nameUuid } from './name-uuid';

/**
 * Event definitions and their daily volumes (plugin-server `property-definitions-manager.ts`, `posthog/api/event_definition.py`), pure.
 *
 * A definition is created the first time its event name is seen, and its `last_seen_at` is bumped at
 * most once per UTC day. Volumes are counted per (event name, UTC day of the event's timestamp) and
 * summed over the last 30 days, so `volume_30_day` can be served without scanning events.
 */

/** Namespace of event definition ids (a random uuid, fixed forever). */
const eventDefinitionNamespace = '5833a2c3-1949-4847-9f87-9efd073a8180';

/**
 * A definition's id, derived from project and name: concurrent consumers seeing a name for the first
 * time create the same definition.
 */
/**
 * A project holds at most this many event definitions. Each distinct event name a client sends
 * creates one, so without a cap anyone with the project token could grow the list (which the
 * definitions API reads whole to sort and filter) without end. Events with names beyond the cap are
 * still stored and listed; they get no definition. PostHog has no such cap; 10,000 is far above
 * what a real product's taxonomy holds.
 */
export const maxEventDefinitionsPerProject = 10_000;

export function eventDefinitionIdFor(projectId: number, name: string): string {
  return nameUuid(`${projectId}:${name}`, eventDefinitionNamespace);
}

/** PostHog keeps its own metrics events out of the definitions. */
const untrackedEventNames = new Set(['$$plugin_metrics']);

export function tracksDefinition(eventName: string): boolean {
  return !untrackedEventNames.has(eventName);
}

/** `YYYY-MM-DD` (UTC) of an ISO 8601 timestamp or a date. */
export function utcDay(time: string | Date): string {
  return (typeof time === 'string' ? new Date(time) : time).toISOString().slice(0, 10);
}

/** Start of the UTC day of `now`, ISO 8601: a `last_seen_at` before it is due for a bump. */
export function startOfUtcDay(now: Date): string {
  return `${utcDay(now)}T00:00:00.000Z`;
}

export function needsLastSeenBump(lastSeenAt: string | null | undefined, now: Date): boolean {
  return !lastSeenAt || lastSeenAt < startOfUtcDay(now);
}

/** How many events of each name fell on each UTC day: one counter update per entry. */
export function countByNameAndDay(
  events: Iterable<{ readonly event: string; readonly timestamp: string }>,
): Map<string, Map<string, number>> {
  const counts = new Map<string, Map<string, number>>();
  for (const { event, timestamp } of events) {
    if (!tracksDefinition(event)) continue;
    const days = counts.get(event) ?? new Map<string, number>();
    const day = utcDay(timestamp);
    days.set(day, (days.get(day) ?? 0) + 1);
    counts.set(event, days);
  }
  return counts;
}

const volumeWindowDays = 30;
const dayMs = 24 * 60 * 60 * 1000;

/** The 30 UTC days that end with `now`'s day, as the first and last `YYYY-MM-DD`. */
export function volumeWindow(now: Date): { readonly from: string; readonly to: string } {
  return { from: utcDay(new Date(now.getTime() - (volumeWindowDays - 1) * dayMs)), to: utcDay(now) };
}

/** Sum of the daily counts that fall in the 30-day window ending at `now`. */
export function volume30Day(
  daily: Iterable<{ readonly day: string; readonly count: number }>,
  now: Date,
): number {
  const { from, to } = volumeWindow(now);
  let total = 0;
  for (const { day, count } of daily) if (day >= from && day <= to) total += count;
  return total;
}
