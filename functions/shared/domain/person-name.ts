import type { Person } from './persons';

/**
 * PostHog's `get_person_name`: the `email` property if it is set, else the first distinct id, those
 * that look anonymous (UUID-like, PostHog's ANONYMOUS_REGEX) last, else the person's uuid.
 */
const anonymousId = /^([a-z0-9]+-){4}[a-z0-9]+$/;

export function personName(person: Pick<Person, 'uuid' | 'properties' | 'distinctIds'>): string {
  const email = person.properties.email;
  if (email) return typeof email === 'string' ? email : JSON.stringify(email);
  const named = person.distinctIds.find((id) => !anonymousId.test(id));
  return named ?? person.distinctIds[0] ?? person.uuid;
}
