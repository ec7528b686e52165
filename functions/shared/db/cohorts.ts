import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { UserBasic } from '../schemas/common';
import { documentClient } from './client';
import { nextId } from './counters';
import { keys } from './keys';
import { conditionally, mainIndex, queryPrefix, withoutKeys } from './operations';

/**
 * Cohorts (keys.ts): one item per cohort under its project, deleted ones kept (`deleted: true`).
 * `filters` and `groups` are stored as JSON text (user JSON; DynamoDB numbers refuse some of it).
 *
 * Calculation bookkeeping, as PostHog's: `pending_version` rises with every change that needs a
 * calculation, `version` is the one last calculated. A live dynamic cohort that failed at most
 * `maxCalculationErrors` times carries the due-index keys (GSI1 `COHORTDUE`, sorted by when it is
 * due): the calculation schedule reads the index, so it never scans cohorts.
 */

export interface CohortRecord {
  id: number;
  team_id: number;
  name: string | null;
  description: string;
  /** Legacy groups as stored (create normalises them, PATCH stores them as sent). */
  groups: unknown[];
  /** The current format, or null for a cohort defined by groups (or nothing). */
  filters: Record<string, unknown> | null;
  deleted: boolean;
  is_static: boolean;
  is_calculating: boolean;
  count: number | null;
  last_calculation: string | null;
  errors_calculating: number;
  last_error_at: string | null;
  created_at: string;
  created_by: UserBasic | null;
  version: number | null;
  pending_version: number;
  /** +1 on every write: each write is conditional on the revision it read (optimistic concurrency). */
  revision: number;
  /**
   * While a calculation holds the cohort: until when (its lease). The schedule does not pick the
   * cohort again before then, even when a PATCH makes it due; absent or null when none runs.
   */
  calculating_until?: string | null;
}

interface CohortItem extends Omit<CohortRecord, 'filters' | 'groups'> {
  filters_json: string;
  groups_json: string;
  GSI1PK?: string;
  GSI1SK?: string;
}

/** PostHog's cut-off: a cohort that failed more often is no longer recalculated automatically. */
export const maxCalculationErrors = 20;
/** PostHog's MAX_AGE_MINUTES: a calculation older than this is redone. */
export const recalculateAfterMs = 15 * 60_000;

/** Whether the schedule should ever pick the cohort. */
export const isScheduled = (cohort: CohortRecord): boolean =>
  !cohort.deleted && !cohort.is_static && cohort.errors_calculating <= maxCalculationErrors;

function toItem(cohort: CohortRecord, now: Date): Record<string, unknown> {
  const { filters, groups, ...fields } = cohort;
  const dueAt = nextDue(cohort, now);
  const item: CohortItem = {
    ...fields,
    filters_json: JSON.stringify(filters),
    groups_json: JSON.stringify(groups),
    ...(dueAt !== undefined ? keys.cohortDue(dueAt, cohort.team_id, cohort.id) : {}),
  };
  return { ...keys.cohort(cohort.team_id, cohort.id), ...item };
}

function fromItem(raw: Record<string, unknown>): CohortRecord {
  const {
    filters_json: filtersJson,
    groups_json: groupsJson,
    GSI1PK: _pk,
    GSI1SK: _sk,
    ...fields
  } = withoutKeys<CohortItem>(raw);
  return {
    ...fields,
    filters: JSON.parse(filtersJson) as CohortRecord['filters'],
    groups: JSON.parse(groupsJson) as unknown[],
  };
}

export type NewCohort = Omit<CohortRecord, 'id' | 'created_at' | 'version' | 'revision'>;

/** A new cohort with the next integer id; a dynamic one is due for calculation at once. */
export async function createCohort(tableName: string, fields: NewCohort, now: Date): Promise<CohortRecord> {
  const id = await nextId(tableName, 'cohort');
  const cohort: CohortRecord = {
    ...fields,
    id,
    created_at: now.toISOString(),
    version: null,
    revision: 1,
  };
  await documentClient.send(
    new PutCommand({
      TableName: tableName,
      Item: toItem(cohort, now),
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
  return cohort;
}

export async function getCohort(
  tableName: string,
  projectId: number,
  cohortId: number,
  consistentRead = false,
): Promise<CohortRecord | undefined> {
  const result = await documentClient.send(
    new GetCommand({
      TableName: tableName,
      Key: keys.cohort(projectId, cohortId),
      ConsistentRead: consistentRead,
    }),
  );
  return result.Item ? fromItem(result.Item) : undefined;
}

/** Every cohort of a project, deleted ones included, by id. */
export async function listCohorts(tableName: string, projectId: number): Promise<CohortRecord[]> {
  return (await queryPrefix(tableName, keys.cohortsPrefix(projectId))).map(fromItem);
}

/**
 * Writes the cohort whole as the next revision of `read`, only if the stored one is still `read`
 * (another writer, an API call or a calculation, got there first otherwise: read again and redo).
 * Its place on the calculation schedule follows from the record (`nextDue`).
 */
export async function putCohort(
  tableName: string,
  read: CohortRecord,
  next: CohortRecord,
  now = new Date(),
): Promise<CohortRecord | undefined> {
  const written = { ...next, revision: read.revision + 1 };
  const ok = await conditionally(() =>
    documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: toItem(written, now),
        ConditionExpression: 'revision = :expected',
        ExpressionAttributeValues: { ':expected': read.revision },
      }),
    ),
  );
  return ok ? written : undefined;
}

/**
 * When a cohort is next due: now when it awaits a calculation, else when its last one ages out; never
 * before a running calculation's lease ends. Undefined: off the schedule.
 */
export function nextDue(cohort: CohortRecord, now: Date): string | undefined {
  if (!isScheduled(cohort)) return undefined;
  const due =
    cohort.is_calculating || cohort.last_calculation === null
      ? now.toISOString()
      : new Date(Date.parse(cohort.last_calculation) + recalculateAfterMs).toISOString();
  const lease = cohort.calculating_until;
  return lease && lease > due ? lease : due;
}

/** A cohort the due index lists: what the schedule needs to decide whether to claim it. */
export interface DueCohort {
  readonly projectId: number;
  readonly cohortId: number;
  readonly dueAt: string;
}

/**
 * Cohorts due at `now`, most overdue first, or the most recently due first (the due index, eventually
 * consistent: the caller reads each cohort again before claiming it).
 */
export async function listDueCohorts(
  tableName: string,
  now: Date,
  limit: number,
  order: 'most_overdue' | 'latest_due' = 'most_overdue',
): Promise<DueCohort[]> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      IndexName: mainIndex,
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK <= :now',
      ExpressionAttributeValues: { ':pk': keys.cohortsDuePartition, ':now': `${now.toISOString()}#~` },
      ProjectionExpression: 'team_id, id, GSI1SK',
      ScanIndexForward: order === 'most_overdue',
      Limit: limit,
    }),
  );
  return (result.Items ?? []).map((item) => ({
    projectId: Number(item.team_id),
    cohortId: Number(item.id),
    dueAt: String(item.GSI1SK).split('#')[0]!,
  }));
}
