import type { PropertyDefinitionItem } from '../shared/db/property-definitions';
import { listPropertyDefinitions, propertiesSeenWith } from '../shared/db/property-definitions';
import { hiddenPropertyDefinitions, isCoreProperty } from '../shared/domain/property-definitions';
import { NotFoundError } from '../shared/http/errors';
import { paginated, pageOf, slicePage } from '../shared/http/pagination';
import { parseQuery, projectRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import type {
  PropertyDefinitionQuery,
  PropertyDefinitionResponse,
} from '../shared/schemas/property-definition';
import { propertyDefinitionQuerySchema } from '../shared/schemas/property-definition';
import { matchesFilters } from './edits';
import { uuidPattern } from './lookup';

/** PostHog's `PropertyDefinitionSerializer`. */
function serialize(
  item: PropertyDefinitionItem,
  seenOnFilteredEvents: boolean | null,
): PropertyDefinitionResponse {
  return {
    id: item.id,
    name: item.name,
    is_numerical: item.is_numerical === true,
    property_type: item.property_type ?? null,
    tags: [],
    is_seen_on_filtered_events: seenOnFilteredEvents,
  };
}

/** The name filters of PostHog's query (everything but `event_names`), as one predicate. */
function nameFilter(query: PropertyDefinitionQuery): (item: PropertyDefinitionItem) => boolean {
  const excluded = new Set([...hiddenPropertyDefinitions, ...(query.excluded_properties ?? [])]);
  const only = query.properties === undefined ? undefined : new Set(query.properties.split(','));
  return (item) =>
    !excluded.has(item.name) &&
    (only === undefined || only.has(item.name)) &&
    (query.is_numerical !== true ||
      (item.is_numerical && !['distinct_id', 'timestamp'].includes(item.name))) &&
    (query.is_feature_flag === undefined || item.name.startsWith('$feature/') === query.is_feature_flag) &&
    (query.exclude_core_properties !== true || !isCoreProperty(item.name)) &&
    matchesFilters(item.name, { search: query.search });
}

/**
 * `GET /api/projects/:project_id/property_definitions/`: the project's event (or, with
 * `type=person`, person) property definitions, filtered as PostHog filters them. With `event_names`,
 * each says whether one of those events was seen with it, and those seen come first (all of them only,
 * with `filter_by_event_names=true`); otherwise they are ordered by name.
 */
export const listPropertyDefinitionsRoute = projectRoute(async ({ singleTable, event, project }) => {
  const page = pageOf(event);
  const query = parseQuery(event, propertyDefinitionQuerySchema);
  const kind = query.type ?? 'event';
  const eventNames = kind === 'event' && query.event_names?.length ? query.event_names : undefined;
  const [items, seenWith] = await Promise.all([
    listPropertyDefinitions(singleTable, project.id, kind),
    eventNames ? propertiesSeenWith(singleTable, project.id, eventNames) : undefined,
  ]);
  const keep = nameFilter(query);
  const listed = items
    .filter(keep)
    .map((item) => ({ item, seen: seenWith ? seenWith.has(item.name) : null }))
    .filter(({ seen }) => query.filter_by_event_names !== true || seen !== false)
    .sort(
      (a, b) =>
        Number(b.seen === true) - Number(a.seen === true) ||
        (a.item.name < b.item.name ? -1 : a.item.name > b.item.name ? 1 : 0),
    );
  const results = slicePage(listed, page).map(({ item, seen }) => serialize(item, seen));
  return json(200, paginated(event, page, listed.length, results));
});

/**
 * `GET /api/projects/:project_id/property_definitions/:id/`: one definition, by its uuid, found among
 * the project's definitions (read as the list reads them: no index is kept for a lookup by id).
 */
export const retrievePropertyDefinitionRoute = projectRoute(async ({ singleTable, event, project }) => {
  const rawId = event.pathParameters?.id;
  if (!rawId || !uuidPattern.test(rawId)) throw new NotFoundError();
  const id = rawId.toLowerCase();
  const kinds = await Promise.all(
    (['event', 'person'] as const).map((kind) => listPropertyDefinitions(singleTable, project.id, kind)),
  );
  const item = kinds.flat().find((definition) => definition.id === id);
  if (!item) throw new NotFoundError();
  return json(200, serialize(item, null));
});
