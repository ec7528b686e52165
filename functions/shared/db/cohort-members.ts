import { keys, personShards } from './keys';
import { batchDeleteAll, batchPutAll, partitionValues } from './operations';

/**
 * Cohort membership (keys.ts): one small item per (cohort, member person), spread over
 * `personShards` partitions by the person's uuid. A member check is one GetItem; a page of members
 * is one Query per shard (db/person-listing.ts `readListingPage`); a calculation reads the current
 * members once and writes only the difference.
 */

export const cohortMemberPartitions = (projectId: number, cohortId: number): string[] =>
  Array.from({ length: personShards }, (_, shard) => keys.cohortMembersPartition(projectId, cohortId, shard));

export function cohortMemberItem(projectId: number, cohortId: number, personUuid: string) {
  return { ...keys.cohortMember(projectId, cohortId, personUuid), person: personUuid };
}

/** Every member's uuid (a calculation's starting point): the shards read in parallel, pages of 1 MB. */
export async function readAllMembers(
  tableName: string,
  projectId: number,
  cohortId: number,
): Promise<Set<string>> {
  const shards = await Promise.all(
    cohortMemberPartitions(projectId, cohortId).map((partition) => readShardMembers(tableName, partition)),
  );
  return new Set(shards.flatMap((shard) => [...shard]));
}

/** Adds members (idempotent); throws the first error if any could not be written. */
export async function addMembers(
  tableName: string,
  projectId: number,
  cohortId: number,
  personUuids: Iterable<string>,
): Promise<void> {
  const puts = [...personUuids].map((uuid) => ({
    item: cohortMemberItem(projectId, cohortId, uuid),
    tag: uuid,
  }));
  const failed = await batchPutAll(tableName, puts, 8);
  const [first] = failed.values();
  if (first) throw first;
}

/** Removes members (idempotent). */
export async function removeMembers(
  tableName: string,
  projectId: number,
  cohortId: number,
  personUuids: Iterable<string>,
): Promise<void> {
  const memberKeys = [...personUuids].map((uuid) => keys.cohortMember(projectId, cohortId, uuid));
  await batchDeleteAll(tableName, memberKeys, 8);
}

/** The members of one shard (a calculation diffs shard by shard). */
export async function readShardMembers(tableName: string, partition: string): Promise<Set<string>> {
  const members = new Set<string>();
  for await (const uuid of partitionValues(tableName, partition, 'SK')) members.add(uuid);
  return members;
}
