/**
 * The time range of PostHog's "Export historical events" job (`{dateFrom, dateTo}` in its payload,
 * the UI's date fields). A date alone covers its whole UTC day, so `dateTo: "2024-01-31"` includes
 * that day; a date with a time is an instant, included. The range is [from, toExclusive).
 */
export interface ExportRange {
  readonly from: Date;
  readonly toExclusive: Date;
}

export type ExportRangeResult =
  | { readonly ok: true; readonly range: ExportRange }
  | { readonly ok: false; readonly field: 'dateFrom' | 'dateTo'; readonly message: string };

const dateOnly = /^\d{4}-\d{2}-\d{2}$/;
/** ISO 8601 dates and date-times only: `Date.parse` alone would take "1" or "March 7". */
const isoDateTime = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

function parseDate(value: unknown): { time: number; dateOnly: boolean } | undefined {
  if (typeof value !== 'string' || value.length > 40) return undefined;
  const only = dateOnly.test(value);
  if (!only && !isoDateTime.test(value)) return undefined;
  // A date-time without a zone is read as UTC, as PostHog's server reads it.
  const zoned = only || /(?:Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`;
  const time = Date.parse(only ? `${value}T00:00:00Z` : zoned.replace(' ', 'T'));
  return Number.isNaN(time) ? undefined : { time, dateOnly: only };
}

export function exportRangeOf(payload: Readonly<Record<string, unknown>>): ExportRangeResult {
  const from = parseDate(payload.dateFrom);
  if (!from) return { ok: false, field: 'dateFrom', message: 'Enter a valid date (YYYY-MM-DD or ISO 8601).' };
  const to = parseDate(payload.dateTo);
  if (!to) return { ok: false, field: 'dateTo', message: 'Enter a valid date (YYYY-MM-DD or ISO 8601).' };
  const toExclusive = to.time + (to.dateOnly ? 86_400_000 : 1);
  if (toExclusive <= from.time)
    return { ok: false, field: 'dateTo', message: 'The end date must not be before the start date.' };
  return { ok: true, range: { from: new Date(from.time), toExclusive: new Date(toExclusive) } };
}
