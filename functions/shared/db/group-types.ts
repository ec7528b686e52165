import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';
import { isConditionalCheckFailed } from './operations';
import { keys } from './keys';

/**
 * A project's group types (PostHog's `GroupTypeMapping`): index 0–4 → name (`company`). Group flags
 * name their group type by index; requests and `/flags/definitions` name groups by type name.
 */

/** PostHog allows five group types per project. */
export const maxGroupTypes = 5;

interface GroupTypeItem {
  group_type: string;
  group_type_index: number;
}

/** Index (as a string, the way `/flags/definitions` spells it) → group type name. */
export async function readGroupTypeMapping(
  tableName: string,
  projectId: number,
): Promise<Record<string, string>> {
  const { PK, SKPrefix } = keys.groupTypesPrefix(projectId);
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': PK, ':prefix': SKPrefix },
    }),
  );
  const mapping: Record<string, string> = {};
  for (const item of (result.Items ?? []) as GroupTypeItem[])
    mapping[String(item.group_type_index)] = item.group_type;
  return mapping;
}

/** Records a group type at an index, unless the index is taken; returns whether it was written. */
export async function putGroupType(
  tableName: string,
  projectId: number,
  index: number,
  name: string,
): Promise<boolean> {
  if (!Number.isInteger(index) || index < 0 || index >= maxGroupTypes)
    throw new RangeError(`Bad group type index ${index}`);
  const item: GroupTypeItem = { group_type: name, group_type_index: index };
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.groupType(projectId, index), ...item },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}
