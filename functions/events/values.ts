import type { EventsApiConfig } from '../shared/config';
import { listEventDefinitions } from '../shared/db/definitions';
import { eventIndexes } from '../shared/db/event-index';
import { listEvents } from '../shared/db/events';
import { readPropertyValues } from '../shared/db/property-values';
import { displayValues } from '../shared/domain/property-values';
import { parseQuery, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { eventValuesQuerySchema } from './query';

/** Values seen within this many days count as recent (PostHog leaves out a value 10 days old). */
const lookbackDays = 7;
const maxResults = 100;
/**
 * The project's most recent events read per request: the bounded cost of listing values just sent
 * (index pages, then at most this many event items, about 500 read units at 1 KB each).
 */
const recentEventsRead = 1_000;
/** Events more than 5 s in the future are hidden from the events list; they give no values either. */
const futureToleranceMs = 5_000;

/**
 * Distinct values of `key` since `since`, most recently seen first: every value among the project's
 * latest `recentEventsRead` events (as PostHog reads them from its recent events), then the older ones
 * the consumer's ingestion-time sample remembers (functions/consumer/property-values.ts).
 */
async function recentValues(
  tables: Pick<EventsApiConfig, 'singleTable' | 'eventsTable'>,
  projectId: number,
  key: string,
  since: string,
  now: number,
): Promise<string[]> {
  const [{ events }, sampled] = await Promise.all([
    listEvents({
      tableName: tables.eventsTable,
      projectId,
      index: eventIndexes.all,
      values: [''],
      limit: recentEventsRead,
      bounds: {
        before: { timestamp: new Date(now + futureToleranceMs).toISOString() },
        after: { timestamp: since },
      },
    }),
    readPropertyValues(tables.singleTable, projectId, key, since),
  ]);
  // Events come newest first, and the sample most recently seen first: the first sighting wins.
  const seen = new Set<string>();
  for (const recent of events) {
    for (const text of displayValues(recent.properties[key])) seen.add(text);
  }
  for (const text of sampled) seen.add(text);
  return [...seen];
}

/**
 * `GET /api/projects/:project_id/events/values/?key=…[&value=…]` (PostHog's `posthog/api/event.py`): distinct recent
 * values of an event property, as text, most recent first, filtered case-insensitively by the
 * substring `value`. `key=custom_event` lists the custom (non-`$`) event names. Values come from the
 * project's latest events and the ingestion-time sample, never a scan of all events.
 */
export const propertyValuesRoute = projectRoute<EventsApiConfig>(
  async ({ singleTable, eventsTable, event, project }) => {
    const { key, value } = parseQuery(event, eventValuesQuerySchema);
    const now = Date.now();
    const names =
      key === 'custom_event'
        ? (await listEventDefinitions(singleTable, project.id))
            .map((definition) => definition.name)
            .filter((name) => !name.startsWith('$'))
        : await recentValues(
            { singleTable, eventsTable },
            project.id,
            key,
            new Date(now - lookbackDays * 24 * 60 * 60 * 1000).toISOString(),
            now,
          );
    const wanted = value?.toLowerCase();
    const results = names
      .filter((name) => wanted === undefined || name.toLowerCase().includes(wanted))
      .slice(0, maxResults);
    return json(
      200,
      results.map((name) => ({ name })),
    );
  },
);
