import { DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DeleteCommandInput, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/personal_api_keys/handler';
import { keys } from '../../../functions/shared/db/keys';
import { httpEvent, invoke } from '../../helpers/http-event';
import { bearer, caller, ddb, givenCaller, inputsOf, table } from '../../helpers/private-api-mocks';

const keyId = '5b0f3f0e-7d0c-4f6c-8e0a-0c8f3a8f2f11';
const keyItem = {
  PK: 'PAK#abc',
  SK: 'PAK',
  ...keys.personalApiKeysOfUser(caller.id, '2026-11-21T19:13:00.000Z', keyId),
  id: keyId,
  user_id: caller.id,
  label: 'ci',
  mask_value: 'phx_...abcd',
  created_at: '2026-11-21T19:13:00.000Z',
  last_used_at: null,
};

describe('personal API keys handler', () => {
  beforeEach(() => {
    givenCaller();
    ddb.on(DeleteCommand).resolves({});
  });

  it("lists only the caller's keys, newest first, masked and without their hash", async () => {
    // Prepare
    ddb.on(QueryCommand).resolves({ Items: [keyItem] });

    // Act
    const response = await invoke(handler, httpEvent('GET', '/api/personal_api_keys/', { headers: bearer }));

    // Assess
    expect(response.body).toEqual({
      count: 1,
      next: null,
      previous: null,
      results: [
        {
          id: keyId,
          label: 'ci',
          value: null,
          mask_value: 'phx_...abcd',
          created_at: keyItem.created_at,
          last_used_at: null,
          user_id: 3,
          // Stored before keys had scopes: it keeps every scope.
          scopes: ['*'],
          scoped_teams: [],
          scoped_organizations: [],
        },
      ],
    });
    expect(inputsOf<QueryCommandInput>(QueryCommand)[0]).toMatchObject({
      TableName: table,
      IndexName: 'GSI1',
      ExpressionAttributeValues: { ':pk': keys.personalApiKeysOfUserPartition(caller.id) },
      ScanIndexForward: false,
    });
  });

  it("deletes a key found among the caller's own, on condition it is still theirs", async () => {
    // Prepare
    ddb.on(QueryCommand).resolves({ Items: [keyItem] });

    // Act
    const response = await invoke(
      handler,
      httpEvent('DELETE', `/api/personal_api_keys/${keyId}/`, { headers: bearer }),
    );

    // Assess
    expect(response.statusCode).toBe(204);
    expect(inputsOf<DeleteCommandInput>(DeleteCommand)).toEqual([
      {
        TableName: table,
        Key: { PK: 'PAK#abc', SK: 'PAK' },
        ConditionExpression: 'user_id = :user AND #id = :id',
        ExpressionAttributeNames: { '#id': 'id' },
        ExpressionAttributeValues: { ':user': 3, ':id': keyId },
      },
    ]);
  });

  it('answers 404 for a key the caller does not have, deleting nothing', async () => {
    // Prepare
    ddb.on(QueryCommand).resolves({ Items: [] });

    // Act
    const response = await invoke(
      handler,
      httpEvent('DELETE', `/api/personal_api_keys/${keyId}/`, { headers: bearer }),
    );

    // Assess
    expect(response).toMatchObject({ statusCode: 404, body: { code: 'not_found' } });
    expect(ddb.commandCalls(DeleteCommand)).toHaveLength(0);
  });

  it('answers 400 naming label when it is missing or too long', async () => {
    const missing = await invoke(
      handler,
      httpEvent('POST', '/api/personal_api_keys/', { headers: bearer, json: {} }),
    );
    expect(missing).toMatchObject({ statusCode: 400, body: { code: 'required', attr: 'label' } });
    const long = await invoke(
      handler,
      httpEvent('POST', '/api/personal_api_keys/', { headers: bearer, json: { label: 'x'.repeat(41) } }),
    );
    expect(long).toMatchObject({ statusCode: 400, body: { type: 'validation_error', attr: 'label' } });
  });
});
