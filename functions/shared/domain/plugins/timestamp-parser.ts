import type { BuiltInPlugin, PluginEvent } from './types';

/**
 * PostHog's Timestamp Parser (timestamp-parser-plugin, as PostHog runs it today): adds the event's
 * weekday, day, month, year, hour and minute as properties, so insights can break down by them.
 *
 * The standalone plugin's 2024 version only parsed numeric timestamps (`!isNaN(timestamp)`), which
 * skipped every ISO string a client sends; PostHog's own port parses ISO strings and numbers (a number
 * above 999999999999 is milliseconds, otherwise seconds). Flock does the latter. PostHog reads the
 * parts in the server's time zone, UTC on its servers and on Lambda; Flock reads them in UTC always.
 */

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

/** ISO 8601 extended format: a year, optionally a month, day, time and offset (what Luxon's fromISO takes). */
const ISO_8601 =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$/;

/** Minutes east of UTC for `Z`, `+hh`, `+hhmm` or `+hh:mm`. */
function offsetMinutes(offset: string | undefined): number {
  if (!offset || offset === 'Z') return 0;
  const digits = offset.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return offset.startsWith('-') ? -minutes : minutes;
}

/** The instant an ISO string names, or null if it is not ISO 8601 or names no real date. */
export function parseIsoTimestamp(text: string): Date | null {
  const parts = ISO_8601.exec(text);
  if (!parts) return null;
  const [, year, month = '1', day = '1', hour = '0', minute = '0', second = '0', fraction = '0', offset] =
    parts;
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const milliseconds = Math.floor(Number(`0.${fraction}`) * 1000);
  const utc = new Date(
    Date.UTC(fields[0], fields[1] - 1, fields[2], fields[3], fields[4], fields[5], milliseconds),
  );
  // Date.UTC rolls 2021-02-30 over to March; a date that does not read back as written is invalid.
  const readsBack =
    utc.getUTCFullYear() === fields[0] &&
    utc.getUTCMonth() === fields[1] - 1 &&
    utc.getUTCDate() === fields[2] &&
    utc.getUTCHours() === fields[3] &&
    utc.getUTCMinutes() === fields[4] &&
    utc.getUTCSeconds() === fields[5];
  return readsBack ? new Date(utc.getTime() - offsetMinutes(offset) * 60_000) : null;
}

/** The instant an event's timestamp names, or null for anything PostHog's parser rejects. */
export function timestampInstant(timestamp: unknown): Date | null {
  let instant: Date | null = null;
  if (typeof timestamp === 'number') {
    instant = new Date(timestamp > 999999999999 ? timestamp : timestamp * 1000);
  } else if (typeof timestamp === 'string') {
    instant = parseIsoTimestamp(timestamp);
  }
  return instant && !isNaN(instant.getTime()) ? instant : null;
}

function processEvent(event: PluginEvent): PluginEvent {
  if (!event.timestamp) return event;
  const properties = (event.properties ??= {});
  const instant = timestampInstant(event.timestamp);
  if (instant) {
    properties['day_of_the_week'] = WEEKDAYS[instant.getUTCDay()];
    properties['day'] = instant.getUTCDate();
    properties['month'] = instant.getUTCMonth() + 1;
    properties['year'] = instant.getUTCFullYear();
    properties['hour'] = instant.getUTCHours();
    properties['minute'] = instant.getUTCMinutes();
  }
  return event;
}

export const timestampParserPlugin: BuiltInPlugin<null> = {
  id: 6,
  name: 'Timestamp Parser',
  description: 'Parse your event timestamps into useful date properties.',
  url: 'https://github.com/PostHog/timestamp-parser-plugin',
  config_schema: [],
  capabilities: { jobs: [], methods: ['processEvent'], scheduled_tasks: [] },
  public_jobs: {},
  setup: () => null,
  processEvent,
};
