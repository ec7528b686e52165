import { isoInTimezone, offsetMinutes } from '../shared/query/values';

/**
 * Athena's result values (every one a string, or absent for NULL) and type names, as PostHog's query
 * API answers them: the same JSON as the DuckDB path (functions/shared/query/values.ts) gives.
 */

/** Athena (Trino) type name → PostHog's (ClickHouse's). */
const typeNames: Readonly<Record<string, string>> = {
  varchar: 'String',
  char: 'String',
  bigint: 'Int64',
  integer: 'Int32',
  smallint: 'Int16',
  tinyint: 'Int8',
  double: 'Float64',
  real: 'Float32',
  boolean: 'Bool',
  date: 'Date',
  uuid: 'UUID',
  decimal: 'Decimal',
  unknown: 'Nullable(Nothing)',
};

const isTimestamp = (type: string): boolean => type.startsWith('timestamp');

export function clickHouseTypeOfAthena(type: string, timezone: string): string {
  const name = type.toLowerCase();
  if (isTimestamp(name)) return `DateTime64(6, '${timezone}')`;
  return Object.hasOwn(typeNames, name) ? typeNames[name]! : type;
}

/** `YYYY-MM-DD HH:MM:SS[.fraction][ zone]`, as Athena prints a timestamp (with time zone). */
const timestampText = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?: (\S+))?$/;
const offsetText = /^([+-])(\d{2}):(\d{2})$/;

/** The UTC offset (minutes) of `zone` (an offset, `UTC`/`Z`, or an IANA name) at the wall time `wallMillis`. */
function zoneOffset(zone: string | undefined, wallMillis: number): number {
  if (zone === undefined || zone === 'UTC' || zone === 'Z') return 0;
  const fixed = offsetText.exec(zone);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3]));
  // Wall time → instant: the offset at the wall time read as UTC, corrected once (DST edges).
  const first = offsetMinutes(zone, wallMillis);
  return offsetMinutes(zone, wallMillis - first * 60_000);
}

/** An Athena timestamp's text as PostHog prints a DateTime64 of the project's `timezone`. */
function timestampValue(text: string, timezone: string): string {
  const match = timestampText.exec(text);
  if (match === null) return text;
  const [, year, month, day, hour, minute, second, fraction = '', zone] = match;
  const wall = Date.UTC(+year!, +month! - 1, +day!, +hour!, +minute!, +second!);
  const utcMillis = wall - zoneOffset(zone, wall) * 60_000;
  const micros = BigInt(utcMillis) * 1000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
  return isoInTimezone(micros, timezone);
}

/** One result value as JSON, by its column's Athena type. */
export function athenaValue(text: string | undefined, type: string, timezone: string): unknown {
  if (text === undefined) return null;
  const name = type.toLowerCase();
  if (name === 'bigint' || name === 'integer' || name === 'smallint' || name === 'tinyint')
    return Number(text);
  if (name === 'double' || name === 'real' || name === 'decimal') {
    const value = Number(text);
    return Number.isFinite(value) ? value : null;
  }
  if (name === 'boolean') return text === 'true';
  if (isTimestamp(name)) return timestampValue(text, timezone);
  return text;
}
