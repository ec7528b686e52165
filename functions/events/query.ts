import { canonicalUuid } from '../shared/domain/uuid';
import * as z from 'zod';
import type { ReadOrder } from '../shared/db/event-index';
import type { EventPropertyFilter } from '../shared/domain/event-filters';
import { sampleKeyLimits } from '../shared/domain/property-values';
import { parseEventFilters, UnparsableFiltersError } from '../shared/domain/event-filters';
import { ValidationError } from '../shared/http/errors';
import { parseQuery } from '../shared/http/private-route';
import type { HttpEvent } from '../shared/http/types';

/**
 * The query of `GET /api/projects/:id/events/` (PostHog's `posthog/api/event.py`): what to list, in which order, and
 * which page. Malformed values are 400 `validation_error` naming the parameter.
 */
export interface EventsQuery {
  readonly event?: string;
  readonly distinctId?: string;
  readonly personId?: string;
  readonly filters: readonly EventPropertyFilter[];
  /** Strict bounds on the timestamp. */
  readonly after?: string;
  readonly before?: string;
  readonly order: ReadOrder;
  readonly limit: number;
  readonly offset: number;
  readonly format: 'json' | 'csv';
  readonly cursor?: Cursor;
}

/** Where a page ends: the last event returned (or examined), so the next page starts right after it. */
export interface Cursor {
  readonly timestamp: string;
  readonly uuid: string;
  /**
   * Events still to skip from there: what remains of an `offset` when the read that should have
   * skipped them stopped early (its examine budget spent). Absent means none.
   */
  readonly skip?: number;
}

/** PostHog's page sizes: 100 by default; CSV exports 3,500 by default and at most 100,000. */
export const limits = { json: { default: 100, max: 1000 }, csv: { default: 3_500, max: 100_000 } } as const;

const integer = (minimum: number) =>
  z
    .string()
    .regex(/^\d+$/, 'A valid integer is required.')
    .transform(Number)
    .pipe(z.number().int().min(minimum, `Ensure this value is greater than or equal to ${minimum}.`));

/**
 * A time as events store theirs: ISO 8601 in UTC with milliseconds and a four-digit year (0–9999, as
 * ingestion keeps them), the only form whose text sorts as the times do, which index reads rely on.
 */
function storedTime(value: string): string | undefined {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  const iso = new Date(ms).toISOString();
  return /^\d{4}-/.test(iso) ? iso : undefined;
}

const timestamp = z.string().transform((value, context) => {
  const time = storedTime(value);
  if (time !== undefined) return time;
  context.addIssue({ code: 'custom', message: 'Enter a valid date/time.' });
  return z.NEVER;
});

const orderBy = z.string().transform((value, context) => {
  try {
    const parsed: unknown = JSON.parse(value);
    const list = Array.isArray(parsed) ? parsed : [parsed];
    if (list.length === 1 && (list[0] === 'timestamp' || list[0] === '-timestamp')) {
      return list[0] === 'timestamp' ? 'oldest' : 'newest';
    }
  } catch {
    // reported below
  }
  context.addIssue({ code: 'custom', message: 'orderBy must be ["timestamp"] or ["-timestamp"].' });
  return z.NEVER;
});

/**
 * Event names and distinct ids are stored cut to 200 characters, so a longer value matches nothing;
 * refused with DRF's message rather than looked up (a long one would also overflow DynamoDB's 2 KB
 * key limit and fail the read).
 */
const storedText = z
  .string()
  .min(1)
  .refine((value) => [...value].length <= 200, 'Ensure this field has no more than 200 characters.');

/**
 * Without a cursor, `offset` events are read and skipped: bounded so one request cannot read the
 * whole project. Deeper pages are reached by following `next`, which carries a cursor at no cost.
 */
export const maxOffset = 10_000;

/** The query of the events list: what parses it is what the OpenAPI document describes. */
export const eventListQuerySchema = z.object({
  event: storedText.optional().describe('Only events of this name.'),
  distinct_id: storedText.optional().describe('Only events of this distinct id.'),
  person_id: z
    .string()
    .min(1)
    .optional()
    .describe("Only events of this person (its uuid): all of the person's distinct ids."),
  properties: z
    .string()
    .optional()
    .describe(
      'JSON list of at most 50 property filters `{key, value, operator, type}` (exact, is_not, icontains, …): keys of at most 400 characters, values of at most 10,000 bytes of JSON.',
    ),
  after: timestamp.optional().describe('Only events strictly after this ISO 8601 time.'),
  before: timestamp.optional().describe('Only events strictly before this ISO 8601 time.'),
  orderBy: orderBy.optional().describe('`["-timestamp"]` (default, newest first) or `["timestamp"]`.'),
  limit: integer(1)
    .optional()
    .describe('Number of events per page (default 100; CSV 3,500, at most 100,000).'),
  offset: integer(0).optional().describe('Events to skip (ignored for positioning when `cursor` is given).'),
  format: z
    .enum(['json', 'csv'])
    .default('json')
    .describe('`csv`: a header and one row per event, in at most 1,000 columns (`X-Csv-Omitted-Columns`).'),
  cursor: z.string().optional().describe('Where the page starts: taken from `next`.'),
});

/** The query of an event property's values. */
export const eventValuesQuerySchema = z.object({
  // A property key names an item of the values sample: beyond this it could not be one (2 KB keys).
  key: z
    .string()
    .min(1)
    .refine(
      (value) => Buffer.byteLength(value) <= sampleKeyLimits.maxKeyBytes,
      `Ensure this field has no more than ${sampleKeyLimits.maxKeyBytes} bytes.`,
    )
    .describe('The property (or `custom_event` for custom event names).'),
  value: z.string().optional().describe('Only values containing this text, ignoring case.'),
});

/** What `encodeCursor` writes: a stored event's time and uuid, and what remains of an offset. */
const cursorSchema = z.union([
  z.tuple([z.string().refine((value) => storedTime(value) === value), z.string().regex(canonicalUuid)]),
  z.tuple([
    z.string().refine((value) => storedTime(value) === value),
    z.string().regex(canonicalUuid),
    z.number().int().min(1).max(maxOffset),
  ]),
]);

export function decodeCursor(raw: string): Cursor {
  try {
    const [timestamp, uuid, skip] = cursorSchema.parse(
      JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')),
    );
    return skip === undefined ? { timestamp, uuid } : { timestamp, uuid, skip };
  } catch {
    throw new ValidationError('invalid_input', 'Invalid cursor.', 'cursor');
  }
}

export const encodeCursor = (cursor: Cursor): string =>
  Buffer.from(
    JSON.stringify(
      cursor.skip ? [cursor.timestamp, cursor.uuid, cursor.skip] : [cursor.timestamp, cursor.uuid],
    ),
  ).toString('base64url');

export function parseEventsQuery(event: HttpEvent): EventsQuery {
  const query = parseQuery(event, eventListQuerySchema);
  let filters: EventPropertyFilter[];
  try {
    filters = parseEventFilters(query.properties);
  } catch (error) {
    if (error instanceof UnparsableFiltersError) throw new ValidationError('invalid_input', error.message);
    throw error;
  }
  // With a cursor, `offset` only tells the position (the cursor says where to read).
  if (query.cursor === undefined && (query.offset ?? 0) > maxOffset)
    throw new ValidationError(
      'invalid_input',
      `Ensure this value is less than or equal to ${maxOffset}; follow \`next\` to read further.`,
      'offset',
    );
  const bounds = limits[query.format];
  return {
    event: query.event,
    distinctId: query.distinct_id,
    personId: query.person_id,
    filters,
    after: query.after,
    before: query.before,
    order: query.orderBy ?? 'newest',
    limit: Math.min(query.limit ?? bounds.default, bounds.max),
    offset: query.offset ?? 0,
    format: query.format,
    cursor: query.cursor === undefined ? undefined : decodeCursor(query.cursor),
  };
}
