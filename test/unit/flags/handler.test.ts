import {
  BatchGetCommand,
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { QueryCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { handler } from '../../../functions/flags/handler';
import { keys } from '../../../functions/shared/db/keys';
import type { FlagFilters } from '../../../functions/shared/domain/flags';
import { apiGatewayEvent, invoke } from '../capture/events';
import { envNames } from '../../../functions/shared/config';
import { environmentValue } from '../../../bin/environment';

/**
 * The flags handler against a mocked table: which reads and writes a request costs, and that a
 * failing read marks flags as failed instead of failing the request.
 */
const ddb = mockClient(DynamoDBDocumentClient);
const tableName = environmentValue(envNames.singleTable)!;

let nextProject = 100;

/** A project with its token item and these flags (stored as the repository stores them). */
function givenProject(
  flags: { key: string; filters: FlagFilters; ensure_experience_continuity?: boolean }[],
) {
  const projectId = nextProject++;
  const token = `phc_unit_${projectId}`;
  ddb
    .on(GetCommand, { Key: keys.projectToken(token) })
    .resolves({ Item: { project_id: projectId, organization: 'org', anonymize_ips: false } });
  const items = flags.map((flag, i) => ({
    ...keys.featureFlag(projectId, i + 1),
    id: i + 1,
    team_id: projectId,
    key: flag.key,
    name: '',
    filters_json: JSON.stringify(flag.filters),
    active: true,
    deleted: false,
    ensure_experience_continuity: flag.ensure_experience_continuity ?? false,
    is_remote_configuration: false,
    rollout_percentage: null,
    created_at: '2026-11-21T00:00:00.000Z',
    created_by: null,
    updated_at: '2026-11-21T00:00:00.000Z',
    version: 1,
  }));
  ddb.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    const prefix = input.ExpressionAttributeValues?.[':prefix'];
    const pk = input.ExpressionAttributeValues?.[':pk'];
    if (pk !== `PROJECT#${projectId}`) return { Items: [] };
    return { Items: prefix === 'FLAG#' ? items : [] };
  });
  return { projectId, token };
}

const proFlag = {
  key: 'pro',
  filters: { groups: [{ properties: [{ key: 'plan', value: 'pro', type: 'person' }] }] },
};
const everyone = { key: 'everyone', filters: { groups: [{ properties: [], rollout_percentage: 100 }] } };

const flagsRequest = (body: Record<string, unknown>, path = '/flags/') =>
  invoke(
    handler,
    apiGatewayEvent({
      path,
      query: { v: '2' },
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );

const commandsOf = () => ddb.calls().map((call) => call.args[0].constructor.name);

describe('flags handler: reads, writes and failures', () => {
  beforeEach(() => {
    ddb.reset();
    ddb.on(GetCommand).resolves({});
    ddb.on(BatchGetCommand).resolves({ Responses: { [tableName]: [] } });
  });

  it('reads the token, flags and group types once, then nothing while the definitions are fresh', async () => {
    // Prepare
    const { token } = givenProject([proFlag, everyone]);
    const body = { token, distinct_id: 'u1', person_properties: { plan: 'pro' } };

    // Act
    const first = await flagsRequest(body);
    const firstCommands = commandsOf();
    ddb.resetHistory();
    const second = await flagsRequest(body);

    // Assess: the request sent every property the flags read, so no person read either
    expect(first.statusCode).toBe(200);
    expect(second.body).toMatchObject({ flags: { pro: { enabled: true }, everyone: { enabled: true } } });
    expect(firstCommands.sort()).toEqual(['GetCommand', 'QueryCommand', 'QueryCommand']);
    expect(commandsOf()).toEqual([]);
  });

  it('reads the stored person only when a flag needs a property the request did not send', async () => {
    // Prepare
    const { token, projectId } = givenProject([proFlag]);

    // Act
    await flagsRequest({ token, distinct_id: 'u1' });

    // Assess
    const personReads = ddb
      .commandCalls(GetCommand)
      .map((call) => call.args[0].input)
      .filter((input) => !String(input.Key?.PK).startsWith('TOKEN#'));
    expect(personReads).toEqual([
      {
        TableName: tableName,
        Key: keys.personDistinctId(projectId, 'u1'),
        ProjectionExpression: '#person',
        ExpressionAttributeNames: { '#person': 'person' },
      },
    ]);
    expect(ddb.commandCalls(BatchGetCommand)).toHaveLength(0);
  });

  it('marks the flags needing the person as failed when it can’t be read, and still answers 200', async () => {
    // Prepare
    const { token, projectId } = givenProject([proFlag, everyone]);
    ddb.on(GetCommand, { Key: keys.personDistinctId(projectId, 'u1') }).rejects(new Error('throttled'));

    // Act
    const response = await flagsRequest({ token, distinct_id: 'u1' });

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatchObject({
      errorsWhileComputingFlags: true,
      flags: {
        pro: { enabled: false, failed: true, reason: { code: 'unknown' } },
        everyone: { enabled: true },
      },
    });
    expect((response.body as { flags: { everyone: object } }).flags.everyone).not.toHaveProperty('failed');
  });

  it('writes continuity overrides for both ids of an identify, first write winning', async () => {
    // Prepare
    const { token, projectId } = givenProject([
      { ...everyone, key: 'sticky', ensure_experience_continuity: true },
    ]);
    ddb.on(UpdateCommand).callsFake((input: UpdateCommandInput) => ({
      Attributes: { distinct_id: input.ExpressionAttributeValues?.[':v1'], 'o#sticky': 'anon-1' },
    }));

    // Act
    const response = await flagsRequest({ token, distinct_id: 'user-1', $anon_distinct_id: 'anon-1' });

    // Assess
    expect(response.body).toMatchObject({
      flags: { sticky: { enabled: true } },
      errorsWhileComputingFlags: false,
    });
    const reads = ddb
      .commandCalls(BatchGetCommand)
      .map((call) => call.args[0].input.RequestItems?.[tableName]);
    expect(reads).toEqual([
      {
        Keys: [
          keys.flagHashKeyOverrides(projectId, 'user-1'),
          keys.flagHashKeyOverrides(projectId, 'anon-1'),
        ],
        ConsistentRead: true,
      },
    ]);
    const writes = ddb.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(writes).toEqual(
      ['user-1', 'anon-1'].map((distinctId) => ({
        TableName: tableName,
        Key: keys.flagHashKeyOverrides(projectId, distinctId),
        UpdateExpression: 'SET #f0 = :v0, #f1 = :v1, #f2 = if_not_exists(#f2, :v2)',
        ExpressionAttributeNames: { '#f0': 'project', '#f1': 'distinct_id', '#f2': 'o#sticky' },
        ExpressionAttributeValues: { ':v0': projectId, ':v1': distinctId, ':v2': 'anon-1' },
        ReturnValues: 'ALL_NEW',
      })),
    );
  });

  it('marks continuity flags as failed when their overrides can’t be written', async () => {
    // Prepare
    const { token } = givenProject([
      { ...everyone, key: 'sticky', ensure_experience_continuity: true },
      everyone,
    ]);
    ddb.on(UpdateCommand).rejects(new Error('throttled'));

    // Act
    const response = await flagsRequest({ token, distinct_id: 'user-1', $anon_distinct_id: 'anon-1' });

    // Assess
    expect(response).toMatchObject({
      statusCode: 200,
      body: {
        errorsWhileComputingFlags: true,
        flags: { sticky: { failed: true }, everyone: { enabled: true } },
      },
    });
  });

  it('refuses a body nested deeper than 128 levels with 400 malformed_data, reading nothing', async () => {
    // Prepare: a distinct id 20k objects deep would overflow the stack when read as text.
    const { token } = givenProject([everyone]);
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;

    // Act
    const response = await invoke(
      handler,
      apiGatewayEvent({
        path: '/flags/',
        query: { v: '2' },
        headers: { 'content-type': 'application/json' },
        body: `{"token":"${token}","distinct_id":${deep}}`,
      }),
    );

    // Assess
    expect(response).toMatchObject({
      statusCode: 400,
      body: {
        type: 'validation_error',
        code: 'malformed_data',
        detail: 'Malformed request data: Invalid JSON: nested deeper than 128 levels',
        attr: null,
      },
    });
    expect(commandsOf()).toEqual([]);
  });

  it('answers 503 flags_unavailable when the definitions can’t be read and none are cached', async () => {
    // Prepare
    const { token } = givenProject([]);
    ddb.on(QueryCommand).rejects(new Error('unreachable'));

    // Act
    const response = await flagsRequest({ token, distinct_id: 'u1' });

    // Assess
    expect(response).toMatchObject({
      statusCode: 503,
      body: { type: 'server_error', code: 'flags_unavailable' },
      headers: { 'Retry-After': '5' },
    });
  });

  it.each([
    ['an empty body', ''],
    ['an empty object', '{}'],
  ])('answers %s with 401 no_api_key, as Django’s decide reads it as no data', async (_case, body) => {
    // Act
    const response = await invoke(
      handler,
      apiGatewayEvent({ path: '/decide/', headers: { 'content-type': 'application/json' }, body }),
    );

    // Assess
    expect(response).toMatchObject({ statusCode: 401, body: { code: 'no_api_key' } });
  });

  it('answers 503 fetch_team_fail when the token can’t be looked up', async () => {
    // Prepare
    ddb.on(GetCommand).rejects(new Error('unreachable'));

    // Act
    const response = await flagsRequest({ token: 'phc_unreachable', distinct_id: 'u1' });

    // Assess
    expect(response).toMatchObject({ statusCode: 503, body: { code: 'fetch_team_fail' } });
  });
});
