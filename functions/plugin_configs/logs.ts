import type { PluginLogEntryType, PluginLogFilter } from '../shared/db/plugin-logs';
import { pluginLogTypes, readPluginLogs } from '../shared/db/plugin-logs';
import { ValidationError } from '../shared/http/errors';
import { defaultLimit, maxLimit, pageLinks } from '../shared/http/pagination';
import { projectRoute } from '../shared/http/private-route';
import { queryParam } from '../shared/http/request';
import { json } from '../shared/http/responses';
import type { HttpEvent } from '../shared/http/types';
import { pluginConfigOfPath } from './load';

/** `limit`/`offset`, with PostHog's wording for a bad `limit` on this endpoint. */
function logPage(event: HttpEvent): { limit: number; offset: number } {
  const limit = queryParam(event, 'limit');
  const offset = queryParam(event, 'offset');
  if (limit !== undefined && !/^\d{1,9}$/.test(limit)) {
    throw new ValidationError('invalid_input', 'Query param limit must be omitted or an integer!', 'limit');
  }
  if (offset !== undefined && !/^\d{1,9}$/.test(offset)) {
    throw new ValidationError('invalid_input', 'Query param offset must be omitted or an integer!', 'offset');
  }
  return {
    limit: Math.max(1, Math.min(limit === undefined ? defaultLimit : Number(limit), maxLimit)),
    offset: offset === undefined ? 0 : Number(offset),
  };
}

/** An ISO 8601 instant (`Z` or an offset) with a four-digit year; 400 naming the parameter otherwise. */
function instant(event: HttpEvent, name: 'after' | 'before'): Date | undefined {
  const text = queryParam(event, name);
  if (text === undefined || text === '') return undefined;
  const parsed = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)
    ? new Date(text.replace(' ', 'T'))
    : undefined;
  if (!parsed || Number.isNaN(parsed.getTime())) {
    throw new ValidationError('invalid_input', `Query param ${name} must be an ISO 8601 date-time.`, name);
  }
  return parsed;
}

/** `type_filter`, repeated (API Gateway joins repeats with commas) or comma-separated. */
function types(event: HttpEvent): PluginLogEntryType[] {
  const raw = queryParam(event, 'type_filter');
  if (!raw) return [];
  const values = [...new Set(raw.split(',').map((value) => value.trim().toUpperCase()))].filter(Boolean);
  const unknown = values.find((value) => !(pluginLogTypes as readonly string[]).includes(value));
  if (unknown !== undefined) {
    throw new ValidationError(
      'invalid_choice',
      `"${unknown.slice(0, 50)}" is not a valid choice: use ${pluginLogTypes.join(', ')}.`,
      'type_filter',
    );
  }
  return values as PluginLogEntryType[];
}

function filterOf(event: HttpEvent): PluginLogFilter {
  const after = instant(event, 'after');
  const before = instant(event, 'before');
  const search = queryParam(event, 'search')?.slice(0, 400);
  return {
    types: types(event),
    ...(after ? { after } : {}),
    ...(before ? { before } : {}),
    ...(search ? { search } : {}),
  };
}

/**
 * `GET /api/projects/:project_id/plugin_configs/:id/logs/`: the config's log entries (spec §2.4),
 * newest first, in the list envelope; `limit`/`offset` applied once, `type_filter`, `search` (message,
 * case-insensitive), `after`/`before` (strict). Entries are kept 7 days. `count` is null past the
 * number of entries one request reads (docs/plugins.md).
 */
export const pluginConfigLogs = projectRoute(async ({ singleTable, event, project }) => {
  const config = await pluginConfigOfPath(singleTable, project.id, event);
  const page = logPage(event);
  const filter = filterOf(event);
  const { entries, count } = await readPluginLogs(singleTable, project.id, config.id, filter, page);
  const links =
    count === null
      ? pageLinks(event, page, entries.length === page.limit ? page.offset + page.limit + 1 : 0)
      : pageLinks(event, page, count);
  return json(200, { count, ...links, results: entries });
});
