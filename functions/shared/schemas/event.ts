import * as z from 'zod';
import { boundedPaginatedSchema } from './common';
import { components } from './registry';

/** A stored event as the events list returns it (`posthog/api/event.py`). */
export const eventSchema = z
  .object({
    id: z.string(),
    distinct_id: z.string(),
    properties: z.record(z.string(), z.unknown()),
    event: z.string(),
    timestamp: z.string(),
    person: z.unknown(),
    elements: z.array(z.unknown()),
    elements_chain: z.string(),
  })
  .register(components, { id: 'Event' });

/** The events list: the list envelope, with a keyset `cursor` in `next` and `count` null when unknown. */
export const eventListSchema = boundedPaginatedSchema(eventSchema, 'PaginatedEventList');

export const eventListQuerySchema = z.object({
  event: z.string().optional().describe('Only events of this name.'),
  distinct_id: z.string().optional().describe('Only events of this distinct id.'),
  person_id: z
    .string()
    .optional()
    .describe("Only events of this person (its uuid): all of the person's distinct ids."),
  properties: z
    .string()
    .optional()
    .describe('JSON list of property filters `{key, value, operator, type}` (exact, is_not, icontains, …).'),
  after: z.string().optional().describe('Only events strictly after this ISO 8601 time.'),
  before: z.string().optional().describe('Only events strictly before this ISO 8601 time.'),
  orderBy: z.string().optional().describe('`["-timestamp"]` (default, newest first) or `["timestamp"]`.'),
  limit: z
    .string()
    .optional()
    .describe('Number of events per page (default 100; CSV 3,500, at most 100,000).'),
  offset: z.string().optional().describe('Events to skip (ignored for positioning when `cursor` is given).'),
  format: z
    .enum(['json', 'csv'])
    .optional()
    .describe('`csv`: a header and one row per event, in at most 1,000 columns (`X-Csv-Omitted-Columns`).'),
  cursor: z.string().optional().describe('Where the page starts: taken from `next`.'),
});

export const eventValuesQuerySchema = z.object({
  key: z.string().describe('The property (or `custom_event` for custom event names).'),
  value: z.string().optional().describe('Only values containing this text, ignoring case.'),
});

export const eventValuesSchema = z
  .array(z.object({ name: z.string() }))
  .register(components, { id: 'EventPropertyValues' });
