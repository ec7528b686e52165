import * as z from 'zod';
import { dateTime } from './common';
import { components } from './registry';

/** A group as PostHog serializes one (`GroupSerializer`, posthog/api/group.py). */
export const groupSchema = /* @__PURE__ */ z
  .object({
    group_type_index: z.number().int(),
    group_key: z.string(),
    group_properties: z.record(z.string(), z.unknown()),
    created_at: dateTime(),
  })
  .register(components, { id: 'Group' });

/** A page of groups by cursor (PostHog's `PaginatedGroupList`: no `count`). */
export const groupPageSchema = /* @__PURE__ */ z
  .object({
    next: z.url().nullable(),
    previous: z.url().nullable(),
    results: z.array(groupSchema),
  })
  .register(components, { id: 'PaginatedGroupList' });

/** A group type (`GroupTypeSerializer`); Flock keeps no display names. */
export const groupTypeSchema = /* @__PURE__ */ z
  .object({
    group_type: z.string(),
    group_type_index: z.number().int(),
    name_singular: z.string().nullable(),
    name_plural: z.string().nullable(),
  })
  .register(components, { id: 'GroupType' });
