import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './client';
import { keys } from './keys';

/** Next integer id of a kind (projects, users, cohorts…): an atomic counter, 1, 2, 3… */
export async function nextId(tableName: string, kind: string): Promise<number> {
  const result = await documentClient.send(
    new UpdateCommand({
      TableName: tableName,
      Key: keys.counter(kind),
      UpdateExpression: 'ADD #value :one',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes?.value);
}
