/** How Flock writes the uuids of events and persons: lower-case hex in 8-4-4-4-12 groups. */
export const canonicalUuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
