import * as z from 'zod';
import type { PluginLogEntryType, PluginLogFilter } from '../shared/db/plugin-logs';
import { pluginLogTypes } from '../shared/db/plugin-logs';
import { defaultLimit, maxLimit } from '../shared/http/pagination';

/** `limit`/`offset`: omitted or an integer, with PostHog's wording for anything else on this endpoint. */
const pageNumber = (name: 'limit' | 'offset') =>
  z
    .string()
    .regex(/^\d{1,9}$/, `Query param ${name} must be omitted or an integer!`)
    .transform(Number)
    .pipe(z.number().int().min(0))
    .optional();

/** An ISO 8601 instant (`Z` or an offset) with a four-digit year; empty is none. */
const instant = (name: 'after' | 'before') =>
  z
    .string()
    .transform((text, context): Date | undefined => {
      if (text === '') return undefined;
      const parsed = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(
        text,
      )
        ? new Date(text.replace(' ', 'T'))
        : undefined;
      if (parsed && !Number.isNaN(parsed.getTime())) return parsed;
      context.addIssue({ code: 'custom', message: `Query param ${name} must be an ISO 8601 date-time.` });
      return z.NEVER;
    })
    .optional();

/** `type_filter`, repeated (API Gateway joins repeats with commas) or comma-separated. */
const typeFilter = z
  .string()
  .transform((raw, context): PluginLogEntryType[] => {
    const values = [...new Set(raw.split(',').map((value) => value.trim().toUpperCase()))].filter(Boolean);
    const unknown = values.find((value) => !(pluginLogTypes as readonly string[]).includes(value));
    if (unknown === undefined) return values as PluginLogEntryType[];
    context.addIssue({
      code: 'invalid_value',
      values: [...pluginLogTypes],
      message: `"${unknown.slice(0, 50)}" is not a valid choice: use ${pluginLogTypes.join(', ')}.`,
    });
    return z.NEVER;
  })
  .optional();

/**
 * The query of `GET /api/projects/:project_id/plugin_configs/:id/logs/`: what parses it is what the
 * OpenAPI document describes. Bad values are 400 naming the parameter.
 */
export const pluginLogQuerySchema = z.object({
  limit: pageNumber('limit').describe('Entries per page (default 100).'),
  offset: pageNumber('offset'),
  after: instant('after').describe('Only entries after this ISO 8601 time.'),
  before: instant('before').describe('Only entries before this ISO 8601 time.'),
  type_filter: typeFilter.describe('Comma-separated types: DEBUG, LOG, INFO, WARN, ERROR.'),
  search: z.string().optional().describe('Case-insensitive substring of the message.'),
});

export interface PluginLogQuery {
  readonly page: { readonly limit: number; readonly offset: number };
  readonly filter: PluginLogFilter;
}

/** The parsed query as a page (limit clamped to 1–`maxLimit`) and a filter (search cut to 400 characters). */
export function pluginLogQuery(query: z.output<typeof pluginLogQuerySchema>): PluginLogQuery {
  const search = query.search?.slice(0, 400);
  return {
    page: {
      limit: Math.max(1, Math.min(query.limit ?? defaultLimit, maxLimit)),
      offset: query.offset ?? 0,
    },
    filter: {
      types: query.type_filter ?? [],
      ...(query.after ? { after: query.after } : {}),
      ...(query.before ? { before: query.before } : {}),
      ...(search ? { search } : {}),
    },
  };
}
