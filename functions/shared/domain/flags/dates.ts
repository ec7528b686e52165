/**
 * Dates as posthog-node's `is_date_before` / `is_date_after` read them: a relative filter value
 * (`7d`, `-7d`, `3h`, `2w`, `1m` = months, `1y`), or anything JavaScript's `Date` parses; numbers
 * are milliseconds since the epoch.
 */

const relativePattern = /^-?(?<amount>[0-9]+)(?<unit>[a-z])$/;

/**
 * Months step back one at a time, clamping the day at each step, so March 31 minus one month is
 * February 28 (29) and minus two is January 28, as the SDK specification has it.
 */
function subtractMonths(date: Date, months: number): void {
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  let day = date.getUTCDate();
  for (let step = 1; step <= months && day > 28; step++) {
    const lastDayOfMonth = new Date(Date.UTC(year, month - step + 1, 0)).getUTCDate();
    day = Math.min(day, lastDayOfMonth);
  }
  date.setUTCFullYear(year, month - months, day);
}

/** February 29 becomes the 28th: the year before a leap year is never one. */
function subtractYears(date: Date, years: number): void {
  const month = date.getUTCMonth();
  const day = years > 0 && month === 1 && date.getUTCDate() === 29 ? 28 : date.getUTCDate();
  date.setUTCFullYear(date.getUTCFullYear() - years, month, day);
}

/** `now` minus the amount: both `7d` and `-7d` mean seven days ago. Null when not relative. */
export function parseRelativeDate(value: string, now: Date): Date | null {
  const groups = relativePattern.exec(value)?.groups;
  if (!groups) return null;
  const amount = parseInt(groups['amount'] ?? '', 10);
  // Larger amounts overflow the calendar in some SDKs; all of them refuse them.
  if (amount >= 10000) return null;
  const date = new Date(now.getTime());
  switch (groups['unit']) {
    case 'h':
      date.setUTCHours(date.getUTCHours() - amount);
      return date;
    case 'd':
      date.setUTCDate(date.getUTCDate() - amount);
      return date;
    case 'w':
      date.setUTCDate(date.getUTCDate() - amount * 7);
      return date;
    case 'm':
      subtractMonths(date, amount);
      return date;
    case 'y':
      subtractYears(date, amount);
      return date;
    default:
      return null;
  }
}

/** A person's date: a string, a number (epoch milliseconds) or a Date; null when unparsable. */
export function parseDateValue(value: unknown): Date | null {
  if (typeof value !== 'string' && typeof value !== 'number' && !(value instanceof Date)) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A filter's date: relative first, then absolute. Booleans are never dates. */
export function parseDateFilter(value: unknown, now: Date): Date | null {
  if (typeof value === 'boolean' || value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number') {
    return parseRelativeDate(String(value), now) ?? parseDateValue(value);
  }
  return null;
}
