import * as z from 'zod';
import { boundedPaginatedSchema } from './common';
import { components } from './registry';

/** A stored event as the events list returns it (`posthog/api/event.py`). */
export const eventSchema = /* @__PURE__ */ z
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
export const eventListSchema = /* @__PURE__ */ boundedPaginatedSchema(eventSchema, 'PaginatedEventList');

export const eventValuesSchema = /* @__PURE__ */ z
  .array(z.object({ name: z.string() }))
  .register(components, { id: 'EventPropertyValues' });
