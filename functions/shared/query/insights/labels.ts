import { isoInTimezone } from '../values';
import type { Bucket, Interval } from './date-range';

/**
 * How PostHog names buckets (posthog/hogql_queries/utils/timestamp_utils.py::format_label_date and
 * the trends runner): `days` as local dates (`YYYY-MM-DD`, with the time for hours), `labels` as
 * `9-Jan-2020` for days and weeks (the week's first day), `9-Jan 00:00` for hours, `Jan 2024` for
 * months, and the series' `action.days` as ISO datetimes with the project's offset.
 */

const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

export function bucketDay(bucket: Bucket, interval: Interval): string {
  return interval === 'hour' ? bucket.local : bucket.local.slice(0, 10);
}

export function bucketLabel(bucket: Bucket, interval: Interval): string {
  const [date, time] = bucket.local.split(' ') as [string, string];
  const [year, month, day] = date.split('-');
  const monthName = months[Number(month) - 1]!;
  if (interval === 'month') return `${monthName} ${year}`;
  if (interval === 'hour') return `${Number(day)}-${monthName} ${time.slice(0, 5)}`;
  return `${Number(day)}-${monthName}-${year}`;
}

export function bucketInstant(bucket: Bucket, timezone: string): string {
  return isoInTimezone(bucket.start, timezone);
}
