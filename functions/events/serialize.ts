import type { Csv } from '../shared/http/csv';
import { toCsv } from '../shared/http/csv';
import type { StoredEvent } from '../shared/domain/event';
import { chainToElements } from '../shared/domain/elements';
import type { ShownPerson } from '../shared/db/persons';

/** An event's person as PostHog's events API shows it, plus its `uuid` (what `person_id` takes). */
function shownPerson(person: ShownPerson | undefined) {
  return person
    ? {
        uuid: person.uuid,
        distinct_ids: person.distinctIds,
        is_identified: person.isIdentified,
        properties: person.properties,
      }
    : null;
}

/**
 * An event as the CSV export flattens it: `serializeEvent`'s keys in its order, less `elements`,
 * which the export leaves out (it writes the chain): parsing the chain was most of a row's cost.
 */
function csvRecord(event: StoredEvent, person: ShownPerson | undefined) {
  return {
    id: event.uuid,
    distinct_id: event.distinctId,
    properties: event.properties,
    event: event.event,
    timestamp: event.timestamp,
    person: shownPerson(person),
    elements_chain: event.elementsChain,
  };
}

/**
 * An event in the shape of PostHog's events API (`posthog/api/event.py`), with its person: the CSV
 * record, with `elements` parsed from the chain before it.
 */
export function serializeEvent(event: StoredEvent, person: ShownPerson | undefined) {
  const { elements_chain, ...record } = csvRecord(event, person);
  return { ...record, elements: chainToElements(elements_chain), elements_chain };
}

export type SerializedEvent = ReturnType<typeof serializeEvent>;

const leadingColumns = ['id', 'event', 'distinct_id', 'timestamp', 'elements_chain'];

/**
 * Events and their persons as CSV: PostHog's leading columns, then the rest sorted; `elements`
 * only as its chain. With `maxBytes`, the events from the first that fit (`Csv.rows` says how many).
 */
export function eventsCsv(
  events: readonly StoredEvent[],
  personOf: (event: StoredEvent) => ShownPerson | undefined,
  maxBytes?: number,
): Csv {
  return toCsv(
    events.map((event) => csvRecord(event, personOf(event))),
    { leading: leadingColumns, omit: ['elements'], maxBytes },
  );
}
