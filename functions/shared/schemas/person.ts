import * as z from 'zod';
import { dateTime } from './common';
import { components } from './registry';

/** A person as PostHog serializes one (`posthog/api/person.py`; `id` is the uuid, Flock has no integer ids). */
export const personSchema = /* @__PURE__ */ z
  .object({
    type: z.literal('person'),
    id: z.uuid(),
    uuid: z.uuid(),
    name: z.string(),
    distinct_ids: z.array(z.string()),
    properties: z.record(z.string(), z.unknown()),
    is_identified: z.boolean(),
    created_at: dateTime(),
  })
  .register(components, { id: 'Person' });

/** A page of persons by cursor (no `count`: counting a project's persons would read them all). */
export const personPageSchema = /* @__PURE__ */ z
  .object({
    results: z.array(personSchema),
    next: z.url().nullable(),
    previous: z.url().nullable(),
  })
  .register(components, { id: 'PersonPage' });
