import type { PropertyUpdates, TimedProperties } from './properties';

/**
 * How large one person may grow. A person is one DynamoDB item (functions/shared/db/persons.ts), and
 * DynamoDB refuses an item over 400 KB: a person past that could never be written again, and every
 * batch holding one of its events would fail. The two caps together keep the item under the limit:
 * 250 distinct ids of at most 200 characters (800 UTF-8 bytes each) take at most 200 KB, and the
 * properties with their times and tombstones at most 160 KiB, leaving room for the other attributes.
 * PostHog caps person properties too (it refuses an update that would pass 640 KB, and warns).
 */
export const personLimits = {
  maxPropertiesBytes: 160 * 1024,
  maxDistinctIds: 250,
} as const;

/**
 * Bytes the stored times take per key, at most: an index into the stamps (up to 6 digits and a
 * comma) and one stamp `[epoch ms,0|1],` of 18 bytes, as db/persons.ts writes them.
 */
const stampBytesPerKey = 26;
/** The framing of the three JSON texts (`{}`, `{"stamps":[],"of":[]}`). */
const framingBytes = 32;
/** A tombstone beyond its key: `:` + 13-digit epoch ms + `,`. */
const tombstoneBytes = 16;

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? '');

/** What a person's properties take when stored, with their times and tombstones (an upper bound). */
export function storedPropertiesBytes(person: TimedProperties): number {
  return (
    jsonBytes(person.properties) +
    stampBytesPerKey * Object.keys(person.properties).length +
    jsonBytes(person.unsetTimes) +
    framingBytes
  );
}

/**
 * The most that applying `updates` can add to `storedPropertiesBytes`: every key set as new (key,
 * value, separators and its stamp) and every `$unset` as a new tombstone. 0 when there is nothing to apply.
 */
export function updateGrowthBytes(updates: PropertyUpdates): number {
  let bytes = 0;
  for (const values of [updates.set, updates.setOnce])
    for (const [key, value] of Object.entries(values))
      bytes += jsonBytes(key) + jsonBytes(value) + 2 + stampBytesPerKey;
  for (const key of updates.unset) bytes += jsonBytes(key) + tombstoneBytes;
  return bytes;
}
