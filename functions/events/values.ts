import * as z from 'zod';
import { listEventDefinitions } from '../shared/db/definitions';
import { readPropertyValues } from '../shared/db/property-values';
import { parseQuery, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';

/** Values seen within this many days count as recent (PostHog leaves out a value 10 days old). */
const lookbackDays = 7;
const maxResults = 100;

const query = z.object({
  key: z.string().min(1),
  value: z.string().optional(),
});

/**
 * `GET /api/projects/:project_id/events/values/?key=…[&value=…]` (reference §6.5): distinct recent
 * values of an event property, as text, most recent first, filtered case-insensitively by the
 * substring `value`. `key=custom_event` lists the custom (non-`$`) event names. Served from the
 * consumer's ingestion-time sample, never a scan of events.
 */
export const propertyValuesRoute = projectRoute(async ({ mainTable, event, project }) => {
  const { key, value } = parseQuery(event, query);
  const names =
    key === 'custom_event'
      ? (await listEventDefinitions(mainTable, project.id))
          .map((definition) => definition.name)
          .filter((name) => !name.startsWith('$'))
      : await readPropertyValues(
          mainTable,
          project.id,
          key,
          new Date(Date.now() - lookbackDays * 24 * 60 * 60 * 1000).toISOString(),
        );
  const wanted = value?.toLowerCase();
  const results = names
    .filter((name) => wanted === undefined || name.toLowerCase().includes(wanted))
    .slice(0, maxResults);
  return json(
    200,
    results.map((name) => ({ name })),
  );
});
