import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';
import { keys, personShards } from './keys';
import { batchPutAll } from './operations';

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
  const members = new Set<string>();
  await Promise.all(
    cohortMemberPartitions(projectId, cohortId).map(async (partition) => {
      let start: Record<string, unknown> | undefined;
      do {
        const page = await documentClient.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: { ':pk': partition },
            ProjectionExpression: 'SK',
            ExclusiveStartKey: start,
          }),
        );
        for (const item of page.Items ?? []) members.add(String(item.SK));
        start = page.LastEvaluatedKey;
      } while (start);
    }),
  );
  return members;
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
