import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/event_definitions/handler';
import { keys } from '../../../functions/shared/db/keys';
import { httpEvent, invoke } from '../../helpers/http-event';
import {
  aProject,
  bearer,
  caller,
  ddb,
  givenCaller,
  inputsOf,
  otherOrganizationId,
  table,
} from '../../helpers/private-api-mocks';

const id = '0bdbf14b-0eb5-553b-8e9c-c2f541ee8d04';
const definition = (overrides: Record<string, unknown> = {}) => ({
  ...keys.eventDefinition(7, 'signup'),
  id,
  project: 7,
  name: 'signup',
  created_at: '2026-11-20T10:00:00.000Z',
  last_seen_at: '2026-11-21T10:00:00.000Z',
  ...overrides,
});
const path = `/api/projects/7/event_definitions/${id}/`;

/** The definition edits sent (not the key's last_used_at refresh). */
const definitionUpdates = () =>
  inputsOf<UpdateCommandInput>(UpdateCommand).filter((input) => input.Key?.SK === 'EVDEF#signup');

describe('event definitions handler', () => {
  beforeEach(() => {
    givenCaller({ projects: [aProject(7), aProject(9, otherOrganizationId)] });
    ddb.on(QueryCommand).resolves({ Items: [] });
    ddb.on(QueryCommand, { KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)' }).resolves({
      Items: [definition()],
    });
    // By id: the id's index entry, then the item itself.
    ddb
      .on(QueryCommand, { IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk' })
      .callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => ({
        Items:
          input.ExpressionAttributeValues[':pk'] === keys.eventDefinitionByIdPartition(7, id)
            ? [keys.eventDefinition(7, 'signup')]
            : [],
      }));
    ddb.on(GetCommand, { Key: keys.eventDefinition(7, 'signup') }).resolves({ Item: definition() });
    ddb
      .on(GetCommand, { Key: keys.user(caller.id) })
      .resolves({ Item: { ...keys.user(caller.id), ...caller } });
    ddb.on(BatchGetCommand).resolves({ Responses: { [table]: [{ ...keys.user(caller.id), ...caller }] } });
  });

  it('verifies on condition that the definition is still unverified, and records the verifier', async () => {
    // Prepare
    ddb
      .on(UpdateCommand, { Key: keys.eventDefinition(7, 'signup') })
      .callsFake((input: UpdateCommandInput) => ({
        Attributes: definition({
          verified: true,
          verified_by_id: 3,
          verified_at: input.ExpressionAttributeValues?.[':v2'],
        }),
      }));

    // Act
    const response = await invoke(
      handler,
      httpEvent('PATCH', path, { headers: bearer, json: { verified: true } }),
    );

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatchObject({ verified: true, verified_by: { id: 3, email: 'ann@example.com' } });
    const [update] = definitionUpdates();
    expect(update?.ConditionExpression).toBe(
      'attribute_exists(PK) AND (attribute_not_exists(#verified) OR #verified <> :wasVerified)',
    );
    expect(update?.Key).toEqual(keys.eventDefinition(7, 'signup'));
  });

  it('re-reads and recomputes when someone else verified it meanwhile', async () => {
    // Prepare: the first read says unverified; the write finds it verified; the re-read agrees.
    ddb
      .on(GetCommand, { Key: keys.eventDefinition(7, 'signup') })
      .resolvesOnce({ Item: definition() })
      .resolves({ Item: definition({ verified: true, verified_by_id: 4 }) });
    ddb
      .on(UpdateCommand, { Key: keys.eventDefinition(7, 'signup') })
      .rejectsOnce(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }))
      .resolves({ Attributes: definition({ verified: true, verified_by_id: 4, description: 'd' }) });

    // Act
    const response = await invoke(
      handler,
      httpEvent('PATCH', path, { headers: bearer, json: { verified: true, description: 'd' } }),
    );

    // Assess
    expect(response.statusCode).toBe(200);
    const [first, second] = definitionUpdates();
    expect(Object.values(first?.ExpressionAttributeNames ?? {})).toContain('verified_by_id');
    expect(Object.values(second?.ExpressionAttributeNames ?? {})).not.toContain('verified_by_id');
    expect(second?.ConditionExpression).toBe('attribute_exists(PK)');
  });

  it('refuses an owner who is not a member of the organization with 400 does_not_exist', async () => {
    const response = await invoke(
      handler,
      httpEvent('PATCH', path, { headers: bearer, json: { owner: 42 } }),
    );
    expect(response).toMatchObject({
      statusCode: 400,
      body: {
        type: 'validation_error',
        code: 'does_not_exist',
        attr: 'owner',
        detail: 'Invalid pk "42" - object does not exist.',
      },
    });
    expect(definitionUpdates()).toHaveLength(0);
  });

  it('answers 404 for an id that is not a uuid, without reading definitions', async () => {
    const response = await invoke(
      handler,
      httpEvent('GET', '/api/projects/7/event_definitions/signup/', { headers: bearer }),
    );
    expect(response).toMatchObject({ statusCode: 404, body: { code: 'not_found' } });
  });

  it('answers 403 for a project of another organization', async () => {
    const response = await invoke(
      handler,
      httpEvent('GET', '/api/projects/9/event_definitions/', { headers: bearer }),
    );
    expect(response).toMatchObject({ statusCode: 403, body: { code: 'permission_denied' } });
  });
});
