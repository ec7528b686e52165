import type { DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { boundedCache } from '../cache';

/**
 * DuckDB result values and types as PostHog's query API answers them (posthog/renderers.py and the
 * ClickHouse driver's type names): datetimes as ISO 8601 in the project's timezone (`Z` for UTC,
 * microseconds only when non-zero), dates as `YYYY-MM-DD`, integers as numbers, NaN and ±Inf as null.
 */

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/**
 * A formatter per timezone: building one costs some 70 µs, once per value of a result that held
 * 50,000 rows of datetimes (seconds of CPU). Bounded: a timezone's spellings are many (any case).
 */
const formatters = boundedCache<string, Intl.DateTimeFormat>({ max: 100 });

function formatterOf(timezone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timezone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timezone, formatter);
  }
  return formatter;
}

/** The UTC offset (minutes) of `timezone` at `utcMillis`. */
export function offsetMinutes(timezone: string, utcMillis: number): number {
  const parts = formatterOf(timezone).formatToParts(new Date(utcMillis));
  const part = (type: string): number => Number(parts.find((entry) => entry.type === type)?.value);
  const local = Date.UTC(
    part('year'),
    part('month') - 1,
    part('day'),
    part('hour'),
    part('minute'),
    part('second'),
  );
  return Math.round((local - Math.floor(utcMillis / 1000) * 1000) / 60_000);
}

/** A UTC instant (microseconds) as PostHog prints a DateTime64 of `timezone`. */
export function isoInTimezone(micros: bigint, timezone: string): string {
  const millis = Number(micros / 1000n);
  const offset = offsetMinutes(timezone, millis);
  const local = new Date(millis + offset * 60_000);
  const fraction = Number(((micros % 1_000_000n) + 1_000_000n) % 1_000_000n);
  const zone =
    offset === 0
      ? 'Z'
      : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return (
    `${local.getUTCFullYear()}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}` +
    `${fraction === 0 ? '' : `.${pad(fraction, 6)}`}${zone}`
  );
}

/** PostHog's (ClickHouse's) name of a result column's type. */
export function clickHouseType(type: DuckDBType, timezone: string): string {
  const name = type.toString();
  const names: Record<string, string> = {
    VARCHAR: 'String',
    BIGINT: 'Int64',
    INTEGER: 'Int32',
    SMALLINT: 'Int16',
    TINYINT: 'Int8',
    UBIGINT: 'UInt64',
    UINTEGER: 'UInt32',
    HUGEINT: 'Int128',
    DOUBLE: 'Float64',
    FLOAT: 'Float32',
    BOOLEAN: 'Bool',
    DATE: 'Date',
    UUID: 'UUID',
    '"NULL"': 'Nullable(Nothing)',
    'TIMESTAMP WITH TIME ZONE': `DateTime64(6, '${timezone}')`,
    TIMESTAMP: `DateTime64(6, '${timezone}')`,
  };
  if (Object.hasOwn(names, name)) return names[name]!;
  return name.startsWith('DECIMAL') ? 'Decimal' : name;
}

/** A result value as JSON. */
export function jsonValue(value: DuckDBValue, timezone: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'object' && 'micros' in value && typeof value.micros === 'bigint')
    return isoInTimezone(value.micros, timezone);
  if (typeof value === 'object' && 'days' in value && typeof value.days === 'number')
    return new Date(value.days * 86_400_000).toISOString().slice(0, 10);
  if (typeof value === 'object' && 'toDouble' in value && typeof value.toDouble === 'function')
    return (value as { toDouble(): number }).toDouble();
  return String(value);
}
