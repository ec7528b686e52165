import * as z from 'zod';
import { maxGroupTypes } from '../shared/db/group-types';

/** The query parameters of the groups API (persons/groups.ts), also used by the OpenAPI document. */

const groupTypeIndex = z
  .string()
  .regex(/^\d$/, 'A valid integer is required.')
  .transform(Number)
  .pipe(
    z
      .number()
      .int()
      .max(maxGroupTypes - 1, `Ensure this value is less than ${maxGroupTypes}.`),
  )
  .describe('The group type, by index (0–4).');

export const groupsListQuerySchema = z.object({
  group_type_index: groupTypeIndex,
  search: z.string().max(1_000).optional().describe('The group key or its properties contain this text.'),
  cursor: z.string().max(2_000).optional().describe('The `next` or `previous` cursor of an earlier page.'),
});

export const groupsFindQuerySchema = z.object({
  group_type_index: groupTypeIndex,
  group_key: z.string().min(1).max(1_000).describe('The key of the group.'),
});
