import type { Csv } from '../shared/http/csv';
import { toCsv } from '../shared/http/csv';
import type { StoredEvent } from '../shared/domain/event';
import { chainToElements } from '../shared/domain/elements';
import type { Person } from '../shared/domain/persons';

/**
 * An event in the shape of PostHog's events API, with its person as that API shows it
 * (`posthog/api/event.py`), plus the person's `uuid`: the value the `person_id` filter takes.
 */
export function serializeEvent(event: StoredEvent, person: Person | undefined) {
  return {
    id: event.uuid,
    distinct_id: event.distinctId,
    properties: event.properties,
    event: event.event,
    timestamp: event.timestamp,
    person: person
      ? {
          uuid: person.uuid,
          distinct_ids: [...person.distinctIds],
          is_identified: person.isIdentified,
          properties: person.properties,
        }
      : null,
    elements: chainToElements(event.elementsChain),
    elements_chain: event.elementsChain,
  };
}

export type SerializedEvent = ReturnType<typeof serializeEvent>;

const leadingColumns = ['id', 'event', 'distinct_id', 'timestamp', 'elements_chain'];

/**
 * Events as CSV: PostHog's leading columns, then the rest sorted; `elements` only as its chain. With
 * `maxBytes`, the events from the first that fit (`Csv.rows` says how many).
 */
export function eventsCsv(events: readonly SerializedEvent[], maxBytes?: number): Csv {
  return toCsv(
    events.map((event) => ({ ...event, elements: undefined })),
    { leading: leadingColumns, omit: ['elements'], maxBytes },
  );
}
