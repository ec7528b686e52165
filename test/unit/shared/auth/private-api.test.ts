import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import {
  authenticate,
  personalApiKeyOf,
  requireAdmin,
  resolveProjectAccess,
} from '../../../../functions/shared/auth/private-api';
import { sha256Hex } from '../../../../functions/shared/auth/secrets';
import type { User } from '../../../../functions/shared/db/users';
import { keys } from '../../../../functions/shared/db/keys';
import { jsonBody } from '../../../../functions/shared/http/json-body';
import type { HttpEvent } from '../../../../functions/shared/http/types';
import { httpEvent } from '../../../helpers/http-event';

const ddb = mockClient(DynamoDBDocumentClient);
const table = 'test-main';

const user: User = {
  id: 3,
  uuid: '0b6c2c3e-2c6f-4c4f-9a43-6d9a7f1f0a01',
  distinct_id: 'd',
  first_name: 'Ann',
  email: 'ann@example.com',
  date_joined: '2026-01-01T00:00:00.000Z',
  current_organization_id: 'org-a',
  current_project_id: 7,
};

/** Runs the JSON body middleware on an event, as the private handlers do before routing. */
async function withParsedBody(event: HttpEvent): Promise<HttpEvent> {
  await jsonBody().before!({
    event,
    context: {} as never,
    response: null,
    error: null,
    internal: {},
  });
  return event;
}

describe('personalApiKeyOf', () => {
  it('reads Authorization: Bearer first', async () => {
    const event = await withParsedBody(
      httpEvent('POST', '/api/projects/', {
        headers: { authorization: 'Bearer  phx_header ' },
        json: { personal_api_key: 'phx_body' },
        query: 'personal_api_key=phx_query',
      }),
    );
    expect(personalApiKeyOf(event)).toBe('phx_header');
  });

  it('then the personal_api_key body field', async () => {
    const event = await withParsedBody(
      httpEvent('POST', '/api/projects/', {
        json: { personal_api_key: 'phx_body' },
        query: 'personal_api_key=phx_query',
      }),
    );
    expect(personalApiKeyOf(event)).toBe('phx_body');
  });

  it('then the personal_api_key query parameter', async () => {
    const event = await withParsedBody(
      httpEvent('GET', '/api/projects/', { query: 'personal_api_key=phx_query' }),
    );
    expect(personalApiKeyOf(event)).toBe('phx_query');
  });

  it('ignores another authorization scheme and a body that is not JSON', async () => {
    const event = await withParsedBody(
      httpEvent('POST', '/api/projects/', {
        headers: { authorization: 'Basic abc', 'content-type': 'application/json' },
        body: '{"personal_api_key": ',
      }),
    );
    expect(personalApiKeyOf(event)).toBeUndefined();
  });
});

describe('authenticate', () => {
  beforeEach(() => {
    ddb.reset();
    ddb.on(UpdateCommand).resolves({});
  });

  const withKey = (key?: string) =>
    httpEvent('GET', '/api/projects/', key ? { headers: { authorization: `Bearer ${key}` } } : {});

  it('answers 401 not_authenticated without a key, reading nothing', async () => {
    // Act
    const attempt = authenticate(withKey(), table);

    // Assess
    await expect(attempt).rejects.toMatchObject({
      statusCode: 401,
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
    expect(ddb.calls()).toHaveLength(0);
  });

  it('answers 401 invalid_personal_api_key for a key it does not know, looked up by its SHA-256', async () => {
    // Prepare
    ddb.on(GetCommand).resolves({});

    // Act
    const attempt = authenticate(withKey('phx_unknown'), table);

    // Assess
    await expect(attempt).rejects.toMatchObject({
      statusCode: 401,
      code: 'invalid_personal_api_key',
      detail: 'Invalid Personal API key.',
    });
    expect(ddb.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: table,
      Key: keys.personalApiKey(sha256Hex('phx_unknown')),
      ConsistentRead: true,
    });
  });

  it('answers 401 invalid_personal_api_key for a key whose user is gone', async () => {
    // Prepare
    ddb
      .on(GetCommand, { Key: keys.personalApiKey(sha256Hex('phx_orphan')) })
      .resolves({ Item: { id: 'k', user_id: 99 } });
    ddb.on(GetCommand, { Key: keys.user(99) }).resolves({});

    // Act / Assess
    await expect(authenticate(withKey('phx_orphan'), table)).rejects.toMatchObject({
      code: 'invalid_personal_api_key',
    });
  });

  it('returns the key’s user and refreshes last_used_at at most hourly', async () => {
    // Prepare
    ddb
      .on(GetCommand, { Key: keys.personalApiKey(sha256Hex('phx_good')) })
      .resolves({ Item: { ...keys.personalApiKey(sha256Hex('phx_good')), id: 'k', user_id: 3 } });
    ddb.on(GetCommand, { Key: keys.user(3) }).resolves({ Item: { ...keys.user(3), ...user } });

    // Act
    const caller = await authenticate(withKey('phx_good'), table);

    // Assess
    expect(caller.user).toEqual(user);
    const touch = ddb.commandCalls(UpdateCommand)[0]?.args[0].input;
    expect(touch?.Key).toEqual(keys.personalApiKey(sha256Hex('phx_good')));
    expect(touch?.ConditionExpression).toContain('last_used_at < :threshold');
  });

  const givenKey = (value: string, scopes?: string[]) => {
    ddb
      .on(GetCommand, { Key: keys.personalApiKey(sha256Hex(value)) })
      .resolves({ Item: { ...keys.personalApiKey(sha256Hex(value)), id: 'k', user_id: 3, scopes } });
    ddb.on(GetCommand, { Key: keys.user(3) }).resolves({ Item: { ...keys.user(3), ...user } });
  };

  it("answers PostHog's 403 to a key without the route's scope", async () => {
    // Prepare
    givenKey('phx_flags', ['feature_flag:write']);

    // Act
    const attempt = authenticate(withKey('phx_flags'), table);

    // Assess
    await expect(attempt).rejects.toMatchObject({
      statusCode: 403,
      type: 'authentication_error',
      code: 'permission_denied',
      detail: "API key missing required scope 'project:read'",
    });
  });

  it('gives a key stored without scopes every scope (`*`)', async () => {
    givenKey('phx_old');
    await expect(authenticate(withKey('phx_old'), table)).resolves.toMatchObject({ key: { scopes: ['*'] } });
  });

  it('refuses any key on a route that declares no scopes', async () => {
    givenKey('phx_all', ['*']);
    const event = httpEvent('POST', '/capture/', { headers: { authorization: 'Bearer phx_all' } });
    await expect(authenticate(event, table)).rejects.toThrow(
      'Route POST /capture/{proxy+} declares no scopes',
    );
  });
});

describe('resolveProjectAccess', () => {
  const project = { id: 7, organization: 'org-a', name: 'P' };
  const membership = { organization_id: 'org-a', user_id: 3, level: 8 };

  beforeEach(() => {
    ddb.reset();
    ddb.on(GetCommand).resolves({});
    ddb.on(GetCommand, { Key: keys.project(7) }).resolves({ Item: { ...keys.project(7), ...project } });
    ddb
      .on(GetCommand, { Key: keys.project(8) })
      .resolves({ Item: { ...keys.project(8), id: 8, organization: 'org-b' } });
    ddb
      .on(GetCommand, { Key: keys.membership(3, 'org-a') })
      .resolves({ Item: { ...keys.membership(3, 'org-a'), ...membership } });
  });

  it('resolves a project of one of the caller’s organizations, with the membership', async () => {
    await expect(resolveProjectAccess({ user }, '7', table)).resolves.toEqual({ project, membership });
  });

  it('resolves @current to the caller’s current project', async () => {
    await expect(resolveProjectAccess({ user }, '@current', table)).resolves.toMatchObject({ project });
  });

  it.each(['abc', '7.0', '-7', '', '1e3', '9999999999999999'])(
    'answers 404 Project not found. for the non-integer id %j without reading',
    async (raw) => {
      await expect(resolveProjectAccess({ user }, raw, table)).rejects.toMatchObject({
        statusCode: 404,
        code: 'not_found',
        detail: 'Project not found.',
      });
      expect(ddb.commandCalls(GetCommand)).toHaveLength(0);
    },
  );

  it('answers 404 for an unknown project and for @current without a current project', async () => {
    await expect(resolveProjectAccess({ user }, '12', table)).rejects.toMatchObject({ statusCode: 404 });
    await expect(
      resolveProjectAccess({ user: { ...user, current_project_id: null } }, '@current', table),
    ).rejects.toMatchObject({ statusCode: 404, detail: 'Project not found.' });
  });

  it('answers 403 permission_denied for a project of another organization', async () => {
    await expect(resolveProjectAccess({ user }, '8', table)).rejects.toMatchObject({
      statusCode: 403,
      type: 'authentication_error',
      code: 'permission_denied',
      detail: "You don't have access to the project.",
    });
  });
});

describe('requireAdmin', () => {
  const at = (level: 1 | 8 | 15) => ({ organization_id: 'o', user_id: 1, level, joined_at: '' });

  it('lets admins and owners through and refuses members with 403', () => {
    expect(() => requireAdmin(at(8), 'no')).not.toThrow();
    expect(() => requireAdmin(at(15), 'no')).not.toThrow();
    expect(() => requireAdmin(at(1), 'no')).toThrow(
      expect.objectContaining({ statusCode: 403, detail: 'no' }),
    );
    expect(() => requireAdmin(undefined, 'no')).toThrow(expect.objectContaining({ statusCode: 403 }));
  });
});
