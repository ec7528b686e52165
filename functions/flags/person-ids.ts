import { boundedCache } from '../shared/cache';

/**
 * Distinct id → uuid of the live person last found for it, per container, so the repeat calls a
 * browser makes (posthog-js asks for flags on every page load, with the same distinct id) read the
 * person item only, not the distinct id's mapping first.
 *
 * Why a remembered uuid can never give another answer than the mapping would: a mapping is claimed
 * once (`functions/shared/db/persons.ts`, `claimDistinctId`) and only ever re-pointed from a merged
 * person to the person it merged into (`repointDistinctId`), after the merged person became a
 * forwarding item (`merged_into`) that the read follows to the survivor; nothing else moves or
 * deletes a mapping while its person stays. So the person a remembered uuid leads to is the one the
 * mapping leads to. Should a remembered person be missing, or forward further than a read follows,
 * the entry is dropped and the mapping read again (`person-read.ts`).
 *
 * Bounds: 10,000 entries per container (least recently used ones go first; about 200 bytes each
 * with a 200-character distinct id, so 2 MB at most), each kept 5 minutes after it was last written.
 * Misses (a distinct id with no person yet) are not kept: its first event creates one.
 */
const personIdsMax = 10_000;
const personIdsTtlMs = 5 * 60_000;

/** One cache per table: a function is bound to one (tests use several). */
const caches = new Map<string, ReturnType<typeof boundedCache<string, string>>>();

function cacheFor(tableName: string) {
  let cache = caches.get(tableName);
  if (!cache) {
    cache = boundedCache<string, string>({ max: personIdsMax, ttlMs: personIdsTtlMs });
    caches.set(tableName, cache);
  }
  return cache;
}

// A project id is a number: the first space ends it, whatever the distinct id holds.
const keyOf = (projectId: number, distinctId: string): string => `${projectId} ${distinctId}`;

export const personIds = {
  get: (tableName: string, projectId: number, distinctId: string): string | undefined =>
    cacheFor(tableName).get(keyOf(projectId, distinctId)),
  set: (tableName: string, projectId: number, distinctId: string, uuid: string): void => {
    cacheFor(tableName).set(keyOf(projectId, distinctId), uuid);
  },
  delete: (tableName: string, projectId: number, distinctId: string): void => {
    cacheFor(tableName).delete(keyOf(projectId, distinctId));
  },
};
