import type { PropertyFilter, PropertyGroup } from '../flags/types';
import { parseExplicitDatetime } from './filters';

/**
 * The behavioural leaves a calculation answers from stored events (`performed_event` and
 * `performed_event_multiple`, validated by filters.ts): which events each one reads, from when, and
 * whether a person's count of them satisfies it. Pure: the caller reads the events.
 */

export interface EventWindow {
  /** The event name the leaf counts. */
  readonly event: string;
  /** Only events at or after this instant count (ISO text, comparable with stored timestamps). */
  readonly since: string;
}

/** `months` calendar months before `date`, the day clamped to the month's last (31 March - 1 = 28 Feb). */
function monthsBefore(date: Date, months: number): Date {
  const start = new Date(date.getTime());
  start.setUTCDate(1);
  start.setUTCMonth(start.getUTCMonth() - months);
  const lastDay = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 0)).getUTCDate();
  start.setUTCDate(Math.min(date.getUTCDate(), lastDay));
  return start;
}

/** `time_value`/`time_interval` back from `now` in calendar units, as ClickHouse's INTERVAL. */
function relativeStart(value: number, interval: string, now: Date): Date {
  if (interval === 'month') return monthsBefore(now, value);
  if (interval === 'year') return monthsBefore(now, 12 * value);
  const start = new Date(now.getTime());
  switch (interval) {
    case 'hour':
      start.setUTCHours(start.getUTCHours() - value);
      break;
    case 'day':
      start.setUTCDate(start.getUTCDate() - value);
      break;
    default:
      start.setUTCDate(start.getUTCDate() - 7 * value);
  }
  return start;
}

/** The window of a validated behavioural leaf. */
export function windowOf(filter: PropertyFilter, now: Date): EventWindow {
  const leaf = filter as PropertyFilter & {
    time_value?: unknown;
    time_interval?: unknown;
    explicit_datetime?: unknown;
  };
  const since =
    typeof leaf.time_value === 'number'
      ? relativeStart(leaf.time_value, String(leaf.time_interval), now)
      : (parseExplicitDatetime(String(leaf.explicit_datetime), now) ?? now);
  return { event: String(filter.key), since: since.toISOString() };
}

/** A stable identity of a window, to count each once however many leaves share it. */
export const windowKey = (window: EventWindow): string => `${window.since} ${window.event}`;

/** Every behavioural leaf of the trees, each window once, grouped by event name (earliest first). */
export function windowsByEvent(
  trees: Iterable<PropertyGroup | undefined>,
  leavesOf: (tree: PropertyGroup | undefined) => PropertyFilter[],
  now: Date,
): Map<string, EventWindow[]> {
  const byEvent = new Map<string, Map<string, EventWindow>>();
  for (const tree of trees) {
    for (const leaf of leavesOf(tree)) {
      if (leaf.type !== 'behavioral') continue;
      const window = windowOf(leaf, now);
      const windows = byEvent.get(window.event) ?? new Map<string, EventWindow>();
      windows.set(windowKey(window), window);
      byEvent.set(window.event, windows);
    }
  }
  return new Map(
    [...byEvent].map(([event, windows]) => [
      event,
      [...windows.values()].sort((a, b) => (a.since < b.since ? -1 : a.since > b.since ? 1 : 0)),
    ]),
  );
}

/** Whether `count` events in the window satisfy the leaf (PostHog's count operators). */
export function satisfiesCount(filter: PropertyFilter, count: number): boolean {
  if (filter.value !== 'performed_event_multiple') return count > 0;
  const wanted = Number((filter as { operator_value?: unknown }).operator_value);
  switch (filter.operator ?? 'eq') {
    case 'gte':
      return count >= wanted;
    case 'gt':
      return count > wanted;
    case 'lte':
      return count <= wanted;
    case 'lt':
      return count < wanted;
    default:
      return count === wanted;
  }
}
