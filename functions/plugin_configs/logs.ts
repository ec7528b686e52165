import { readPluginLogs } from '../shared/db/plugin-logs';
import { pageLinks } from '../shared/http/pagination';
import { parseQuery, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { pluginConfigOfPath } from './load';
import { pluginLogQuery, pluginLogQuerySchema } from './log-query';

/**
 * `GET /api/projects/:project_id/plugin_configs/:id/logs/`: the config's log entries (`posthog/api/plugin_log_entry.py`),
 * newest first, in the list envelope; `limit`/`offset` applied once, `type_filter`, `search` (message,
 * case-insensitive), `after`/`before` (strict). Entries are kept 7 days. `count` is null past the
 * number of entries one request reads (docs/plugins.md).
 */
export const pluginConfigLogs = projectRoute(async ({ singleTable, event, project }) => {
  const config = await pluginConfigOfPath(singleTable, project.id, event);
  const { page, filter } = pluginLogQuery(parseQuery(event, pluginLogQuerySchema));
  const { entries, count } = await readPluginLogs(singleTable, project.id, config.id, filter, page);
  const links =
    count === null
      ? pageLinks(event, page, entries.length === page.limit ? page.offset + page.limit + 1 : 0)
      : pageLinks(event, page, count);
  return json(200, { count, ...links, results: entries });
});
