import type { DateRange, FunnelsQuery, TrendsQuery } from './schema';

/**
 * The lake's date partitions (UTC days, `events/project_id=<id>/date=<YYYY-MM-DD>/`) an insight can
 * read, known before any file is listed: a superset of the UTC days of its range, so that the query
 * function lists and downloads those partitions only. Worked out in JavaScript from the query's text,
 * without the project's calendar: each bound is widened by two days (the project's timezone offset,
 * at most 14 hours either way, and truncation to the start of a local day or hour), a month counts 31
 * days, a quarter 92, a year 366. The exact range is still resolved and applied in SQL
 * (./date-range.ts); these dates only decide which files are read.
 *
 * Undefined (every partition) when the range starts at `all`, cannot be read here (the query then
 * answers its 400), or spans more than `maxPartitions` days: listing the project's prefix once is
 * cheaper than one listing per day.
 */

/** The most partitions listed one by one. */
export const maxPartitions = 62;

const dayMs = 86_400_000;
const slackMs = 2 * dayMs;
/** The longest a unit of PostHog's relative dates lasts, in milliseconds. */
const unitMs: Readonly<Record<string, number>> = {
  s: 1_000,
  M: 60_000,
  h: 3_600_000,
  d: dayMs,
  w: 7 * dayMs,
  m: 31 * dayMs,
  q: 92 * dayMs,
  y: 366 * dayMs,
};
const relative = /^-?(\d{1,6})([sMhdwmqy])$/;
const startOrEnd = /^(?:-(\d{1,6}))?([hdwmqy])(Start|End)$/;
const absoluteDay = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/;

/** The earliest (`side` from) or latest (to) instant, in ms, a date text can mean at `now`. */
function boundMs(text: string, now: number, side: 'from' | 'to'): number | undefined {
  const rel = relative.exec(text);
  if (rel) return now - Number(rel[1]) * unitMs[rel[2]!]!;
  const edge = startOrEnd.exec(text);
  if (edge) {
    const shifted = now - Number(edge[1] ?? 0) * unitMs[edge[2]!]!;
    // The start of the unit is at most one unit before, its end at most one unit after.
    return side === 'from' ? shifted - unitMs[edge[2]!]! : shifted + unitMs[edge[2]!]!;
  }
  const day = absoluteDay.exec(text);
  if (!day) return undefined;
  const ms = Date.parse(`${day[1]}T00:00:00Z`);
  if (Number.isNaN(ms)) return undefined;
  return side === 'from' ? ms : ms + dayMs;
}

/** The UTC days from `fromMs` to `toMs`, or undefined past `maxPartitions`. */
function daysBetween(fromMs: number, toMs: number): string[] | undefined {
  const first = Math.floor(fromMs / dayMs);
  const last = Math.floor(toMs / dayMs);
  if (last < first || last - first + 1 > maxPartitions) return undefined;
  return Array.from({ length: last - first + 1 }, (_, index) =>
    new Date((first + index) * dayMs).toISOString().slice(0, 10),
  );
}

/**
 * The range's bounds widened by the slack: `extendBackMs` more before its start (what the query reads
 * before its range: the previous period of a comparison, the look-back of weekly and monthly actives).
 */
function rangeDays(dateRange: DateRange, now: Date, extendBack: (span: number) => number) {
  const fromText = dateRange?.date_from ?? '-7d';
  if (fromText === 'all') return undefined;
  const nowMs = now.getTime();
  const from = boundMs(fromText, nowMs, 'from');
  const to = dateRange?.date_to ? boundMs(dateRange.date_to, nowMs, 'to') : nowMs;
  if (from === undefined || to === undefined || !Number.isFinite(from) || !Number.isFinite(to))
    return undefined;
  return daysBetween(from - extendBack(Math.max(0, to - from)) - slackMs, to + slackMs);
}

/** The partitions a TrendsQuery reads (its comparison period and active-user look-back included). */
export function trendsPartitions(trends: TrendsQuery, now: Date): string[] | undefined {
  const activeUsers = trends.series.some(
    (node) => node.math === 'weekly_active' || node.math === 'monthly_active',
  );
  const compare = trends.compareFilter?.compare === true;
  const compareTo = trends.compareFilter?.compare_to;
  // The range starts at the start of its first bucket: up to one bucket before `date_from`.
  const bucket = unitMs[{ hour: 'h', day: 'd', week: 'w', month: 'm' }[trends.interval ?? 'day']]!;
  return rangeDays(trends.dateRange, now, (span) => {
    let back = bucket + (activeUsers ? 30 * dayMs : 0);
    if (compare) {
      // The previous period is shifted by `compare_to`, by a relative `date_from`, or by the range's
      // buckets (at most the span and one more bucket).
      const shift = relative.exec(compareTo ?? trends.dateRange?.date_from ?? '-7d');
      back += shift ? Number(shift[1]) * unitMs[shift[2]!]! : span + bucket;
    }
    return back;
  });
}

/** The partitions a FunnelsQuery reads: its range (conversions count within it only). */
export function funnelsPartitions(funnels: FunnelsQuery, now: Date): string[] | undefined {
  return rangeDays(funnels.dateRange, now, () => 0);
}
