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

/** Text JSON writes as it is, between quotes: printable ASCII other than `"` and `\\`. */
const plainJsonText = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * The bytes of `value`'s JSON text. Every event's `$set` and `$set_once` keys and values pass here:
 * the common ones, plain text, numbers, booleans and null, are counted without writing the JSON.
 */
function jsonBytes(value: unknown): number {
  if (typeof value === 'string' && plainJsonText.test(value)) return value.length + 2;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value).length;
  if (typeof value === 'boolean') return value ? 4 : 5;
  if (value === null) return 4;
  return Buffer.byteLength(JSON.stringify(value) ?? '');
}

/** What a person's properties take when stored, with their times and tombstones (an upper bound). */
export function storedPropertiesBytes(person: TimedProperties): number {
  return (
    jsonBytes(person.properties) +
    stampBytesPerKey * Object.keys(person.properties).length +
    jsonBytes(person.unsetTimes) +
    framingBytes
  );
}

/** A person's `storedPropertiesBytes` with the counts it depends on. */
export interface StoredSize {
  readonly bytes: number;
  readonly properties: number;
  readonly tombstones: number;
}

export function storedSizeOf(person: TimedProperties): StoredSize {
  return {
    bytes: storedPropertiesBytes(person),
    properties: Object.keys(person.properties).length,
    tombstones: Object.keys(person.unsetTimes).length,
  };
}

/**
 * What an entry adds to its object's JSON text with its separator (a text of n ≥ 1 entries holds
 * n − 1 commas between its braces: `{}` is 2 bytes, `{"a":1}` 7, `{"a":1,"b":2}` 13).
 */
const entryBytes = (key: string, value: unknown): number => jsonBytes(key) + jsonBytes(value) + 2;

/**
 * `storedSizeOf(after)` from `storedSizeOf(before)` (`size`), where `after` differs from `before` only
 * in `keys`: work in the keys, not in the person's size.
 */
export function storedSizeAfter(
  size: StoredSize,
  before: TimedProperties,
  after: TimedProperties,
  keys: Iterable<string>,
): StoredSize {
  let { bytes, properties, tombstones } = size;
  for (const key of keys) {
    if (Object.hasOwn(before.properties, key)) {
      bytes -= entryBytes(key, before.properties[key]) + stampBytesPerKey;
      properties--;
    }
    if (Object.hasOwn(after.properties, key)) {
      bytes += entryBytes(key, after.properties[key]) + stampBytesPerKey;
      properties++;
    }
    if (Object.hasOwn(before.unsetTimes, key)) {
      bytes -= entryBytes(key, before.unsetTimes[key]);
      tombstones--;
    }
    if (Object.hasOwn(after.unsetTimes, key)) {
      bytes += entryBytes(key, after.unsetTimes[key]);
      tombstones++;
    }
  }
  // An empty object's text has no separator to drop: one byte more than the entries count.
  const emptyBytes = (count: number): number => (count === 0 ? 1 : 0);
  bytes += emptyBytes(properties) - emptyBytes(size.properties);
  bytes += emptyBytes(tombstones) - emptyBytes(size.tombstones);
  return { bytes, properties, tombstones };
}

/** What `values` can add to `storedPropertiesBytes`: each key set as new, with its stamp. */
function valuesGrowthBytes(values: Readonly<Record<string, unknown>>): number {
  let bytes = 0;
  for (const key of Object.keys(values))
    bytes += jsonBytes(key) + jsonBytes(values[key]) + 2 + stampBytesPerKey;
  return bytes;
}

/**
 * The most that applying `updates` can add to `storedPropertiesBytes`: every key set as new (key,
 * value, separators and its stamp) and every `$unset` as a new tombstone. 0 when there is nothing to apply.
 */
export function updateGrowthBytes(updates: PropertyUpdates): number {
  // By key rather than by `Object.entries` pairs: every event with person updates passes here.
  let bytes = valuesGrowthBytes(updates.set) + valuesGrowthBytes(updates.setOnce);
  for (const key of updates.unset) bytes += jsonBytes(key) + tombstoneBytes;
  return bytes;
}
