import type { Person } from '../shared/domain/persons';
import { personName } from '../shared/domain/person-name';

/**
 * A person in PostHog's shape (its `SerializedPerson`): `id` and `uuid` both the person's uuid (Flock
 * has no integer person ids), `name` as PostHog derives it. `maxDistinctIds` caps the list as
 * PostHog's cohort persons endpoint does (10); the persons API shows them all.
 */
export function serializePerson(person: Person, maxDistinctIds = Number.POSITIVE_INFINITY) {
  return {
    type: 'person' as const,
    id: person.uuid,
    uuid: person.uuid,
    name: personName(person),
    distinct_ids: person.distinctIds.slice(0, maxDistinctIds),
    properties: person.properties,
    is_identified: person.isIdentified,
    created_at: person.createdAt,
  };
}
