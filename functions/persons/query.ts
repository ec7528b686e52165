import * as z from 'zod';
import type { PersonQuery } from '../shared/domain/person-filters';
import { personFiltersSchema } from '../shared/domain/person-filters';
import { maxLimit } from '../shared/http/pagination';
import { ValidationError, validationErrorFromZod } from '../shared/http/errors';
import { parseQuery } from '../shared/http/private-route';
import type { HttpEvent } from '../shared/http/types';
import type { Cursor } from './page';
import { decodeCursor } from './page';

/** The query of a persons list: page size, cursor, and what to keep. */
export interface PersonsRequest {
  readonly limit: number;
  readonly cursor?: Cursor;
  readonly distinctId?: string;
  readonly email?: string;
  readonly query: PersonQuery;
}

const integer = z
  .string()
  .regex(/^\d{1,7}$/, 'A valid integer is required.')
  .transform(Number)
  .pipe(z.number().int().min(1, 'Ensure this value is greater than or equal to 1.'));

export const personsQuerySchema = z.object({
  limit: integer.optional().describe('Persons per page (default 100, at most 1000).'),
  cursor: z.string().max(2_000).optional().describe('The `next` or `previous` cursor of an earlier page.'),
  distinct_id: z.string().max(1_000).optional().describe('Only the person with this distinct id.'),
  email: z
    .string()
    .max(1_000)
    .optional()
    .describe('Only the persons whose `email` property is exactly this value.'),
  search: z.string().max(1_000).optional().describe('Email, name or a distinct id contains this text.'),
  properties: z.string().max(100_000).optional().describe('A JSON list of person property filters.'),
});

/** `properties` as PostHog sends it: a JSON list of `{key, value, operator, type: "person"}`. */
function parsePropertyFilters(raw: string | undefined): PersonQuery['properties'] {
  if (raw === undefined || raw.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ValidationError('parse_error', 'Properties are unparsable!', 'properties');
  }
  const result = personFiltersSchema.safeParse(parsed);
  if (!result.success) {
    const error = validationErrorFromZod(result.error);
    throw new ValidationError(
      error.code,
      error.detail,
      error.attr ? `properties__${error.attr}` : 'properties',
    );
  }
  return result.data;
}

export function parsePersonsRequest(event: HttpEvent, defaultLimit = 100): PersonsRequest {
  const query = parseQuery(event, personsQuerySchema);
  return {
    limit: Math.min(query.limit ?? defaultLimit, maxLimit),
    ...(query.cursor ? { cursor: decodeCursor(query.cursor) } : {}),
    ...(query.distinct_id !== undefined ? { distinctId: query.distinct_id } : {}),
    ...(query.email !== undefined ? { email: query.email } : {}),
    query: {
      ...(query.search?.trim() ? { search: query.search.trim() } : {}),
      properties: parsePropertyFilters(query.properties),
    },
  };
}
