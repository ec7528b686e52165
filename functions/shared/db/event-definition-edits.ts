import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';
import type { EventDefinitionItem } from './definitions';
import { isConditionalCheckFailed, assignmentsOf, setExpression } from './operations';
import { keys } from './keys';

/** What a PATCH writes: the fields the private API owns; users by id, embedded when read. */
export interface EventDefinitionEdits {
  owner?: number | null;
  description?: string | null;
  tags?: string[];
  verified?: boolean;
  verified_at?: string | null;
  verified_by_id?: number | null;
  post_to_slack?: boolean;
  updated_at: string;
  updated_by_id: number;
}

/**
 * The private API's writes to an event definition: only the fields it owns (owner, description,
 * tags, verified, verified_at, verified_by_id, post_to_slack, updated_at, updated_by_id), SET on the
 * item the consumer creates and keeps (`functions/shared/db/definitions.ts`), which never touches
 * them. One item, so a definition is read with one GetItem/Query and no join.
 *
 * Conditions: the item must exist (a PATCH never creates a definition), and when the edits change
 * `verified`, it must still be as the edits were computed from (`wasVerified`), so two concurrent
 * verifications cannot both record themselves. Returns the item as stored, or `'conflict'` when a
 * condition failed (the caller re-reads: the definition is gone, or was verified meanwhile).
 */
export async function writeEventDefinitionEdits(
  tableName: string,
  projectId: number,
  name: string,
  edits: EventDefinitionEdits,
  wasVerified: boolean,
): Promise<EventDefinitionItem | 'conflict'> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  let condition = 'attribute_exists(PK)';
  if (edits.verified !== undefined) {
    names['#verified'] = 'verified';
    values[':wasVerified'] = true;
    condition += wasVerified
      ? ' AND #verified = :wasVerified'
      : ' AND (attribute_not_exists(#verified) OR #verified <> :wasVerified)';
  }
  try {
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: keys.eventDefinition(projectId, name),
        ...setExpression(assignmentsOf(edits), names, values),
        ConditionExpression: condition,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return result.Attributes as EventDefinitionItem;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return 'conflict';
    throw error;
  }
}
