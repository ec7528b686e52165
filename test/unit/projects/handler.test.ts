import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DeleteCommandInput, PutCommandInput, UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/projects/handler';
import { keys } from '../../../functions/shared/db/keys';
import { logger } from '../../../functions/shared/logger';
import { httpEvent, invoke } from '../../helpers/http-event';
import {
  aProject,
  bearer,
  caller,
  ddb,
  givenCaller,
  inputsOf,
  organizationId,
  table,
} from '../../helpers/private-api-mocks';

describe('projects handler', () => {
  beforeEach(() => givenCaller());

  describe('POST /api/projects/', () => {
    beforeEach(() => {
      ddb.on(UpdateCommand, { Key: keys.counter('project') }).resolves({ Attributes: { value: 12 } });
      ddb.on(PutCommand).resolves({});
    });

    it('writes the token lookup item first, conditionally, then the project, and answers 201', async () => {
      // Act
      const response = await invoke(
        handler,
        httpEvent('POST', '/api/projects/', { headers: bearer, json: { name: 'Web', anonymize_ips: true } }),
      );

      // Assess
      expect(response.statusCode).toBe(201);
      const body = response.body as Record<string, unknown>;
      expect(body).toMatchObject({ id: 12, name: 'Web', anonymize_ips: true, organization: organizationId });
      expect(body.api_token).toMatch(/^phc_[\w-]{43}$/);
      const [tokenPut, projectPut] = inputsOf<PutCommandInput>(PutCommand);
      expect(tokenPut).toEqual({
        TableName: table,
        Item: {
          ...keys.projectToken(body.api_token as string),
          project_id: 12,
          organization: organizationId,
          anonymize_ips: true,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      });
      expect(projectPut?.Item).toMatchObject({
        ...keys.project(12),
        ...keys.projectsOfOrganization(organizationId, 12),
      });
      expect(projectPut?.ConditionExpression).toBe('attribute_not_exists(PK)');
    });

    it("makes the new project the caller's current one", async () => {
      // Act
      await invoke(handler, httpEvent('POST', '/api/projects/', { headers: bearer, json: {} }));

      // Assess
      const userUpdate = inputsOf<UpdateCommandInput>(UpdateCommand).find(
        (input) => input.Key?.PK === keys.user(caller.id).PK,
      );
      expect(userUpdate?.ExpressionAttributeValues).toEqual({ ':v0': 12 });
      expect(userUpdate?.ExpressionAttributeNames).toEqual({ '#f0': 'current_project_id' });
    });

    it('refuses a plain member with 403 and writes nothing', async () => {
      // Prepare
      givenCaller({ level: 1 });

      // Act
      const response = await invoke(
        handler,
        httpEvent('POST', '/api/projects/', { headers: bearer, json: { name: 'x' } }),
      );

      // Assess
      expect(response).toMatchObject({
        statusCode: 403,
        body: { code: 'permission_denied', detail: 'Your organization access level is insufficient.' },
      });
      expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    });

    it('answers 401 before reading a malformed body, and 400 parse_error after authentication', async () => {
      const malformed = { body: '{"name":', headers: { 'content-type': 'application/json' } };
      const unauthenticated = await invoke(handler, httpEvent('POST', '/api/projects/', malformed));
      expect(unauthenticated).toMatchObject({ statusCode: 401, body: { code: 'not_authenticated' } });
      expect(unauthenticated.headers['WWW-Authenticate']).toBe('Bearer');

      const authenticated = await invoke(
        handler,
        httpEvent('POST', '/api/projects/', { ...malformed, headers: { ...malformed.headers, ...bearer } }),
      );
      expect(authenticated.statusCode).toBe(400);
      expect(authenticated.body).toMatchObject({ type: 'invalid_request', code: 'parse_error', attr: null });
      expect((authenticated.body as { detail: string }).detail).toMatch(/^JSON parse error - /);
    });

    it('answers 400 parse_error for a body nested deeper than 128 levels, and writes nothing', async () => {
      // Prepare: 20k levels would overflow the stack of whatever reads the field recursively.
      const deep = `${'['.repeat(20_000)}${']'.repeat(20_000)}`;

      // Act
      const response = await invoke(
        handler,
        httpEvent('POST', '/api/projects/', {
          body: `{"name":"x","timezone":${deep}}`,
          headers: { ...bearer, 'content-type': 'application/json' },
        }),
      );

      // Assess
      expect(response).toMatchObject({
        statusCode: 400,
        body: {
          type: 'invalid_request',
          code: 'parse_error',
          detail: 'JSON parse error - Nested deeper than 128 levels.',
          attr: null,
        },
      });
      expect(ddb.commandCalls(PutCommand)).toHaveLength(0);
    });

    it('answers 415 for a body that is not declared as JSON', async () => {
      const response = await invoke(
        handler,
        httpEvent('POST', '/api/projects/', {
          body: 'name=x',
          headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' },
        }),
      );
      expect(response).toMatchObject({
        statusCode: 415,
        body: {
          type: 'invalid_request',
          code: 'unsupported_media_type',
          detail: 'Unsupported media type "application/x-www-form-urlencoded" in request.',
          attr: null,
        },
      });
    });
  });

  describe('PATCH /api/projects/:id/', () => {
    it('updates the given fields and keeps the token item’s anonymize_ips in step', async () => {
      // Prepare
      const stored = aProject(7, organizationId, { anonymize_ips: true, name: 'Renamed' });
      ddb
        .on(UpdateCommand, { Key: keys.project(7) })
        .resolves({ Attributes: { ...keys.project(7), ...stored } });

      // Act
      const response = await invoke(
        handler,
        httpEvent('PATCH', '/api/projects/7/', {
          headers: bearer,
          json: { name: 'Renamed', anonymize_ips: true, api_token: 'x' },
        }),
      );

      // Assess
      expect(response).toMatchObject({
        statusCode: 200,
        body: { name: 'Renamed', anonymize_ips: true, api_token: 'phc_token_7' },
      });
      const updates = inputsOf<UpdateCommandInput>(UpdateCommand);
      const projectUpdate = updates.find((input) => input.Key?.PK === 'PROJECT#7');
      expect(Object.values(projectUpdate?.ExpressionAttributeNames ?? {})).toEqual([
        'name',
        'anonymize_ips',
        'updated_at',
      ]);
      expect(projectUpdate?.ConditionExpression).toBe('attribute_exists(PK)');
      const tokenUpdate = updates.find((input) => input.Key?.PK === keys.projectToken('phc_token_7').PK);
      expect(tokenUpdate).toMatchObject({
        UpdateExpression: 'SET anonymize_ips = :anonymize',
        ConditionExpression: 'attribute_exists(PK) AND project_id = :project',
        ExpressionAttributeValues: { ':anonymize': true, ':project': 7 },
      });
    });
  });

  describe('DELETE /api/projects/:id/', () => {
    it('deletes the token item before the project item and answers 204 with no body', async () => {
      // Prepare
      givenCaller({ projects: [aProject(7), aProject(8)] });
      ddb.on(DeleteCommand).resolves({});
      ddb.on(QueryCommand).resolves({ Items: [aProject(8)] });

      // Act
      const response = await invoke(handler, httpEvent('DELETE', '/api/projects/8/', { headers: bearer }));

      // Assess
      expect(response).toEqual({ statusCode: 204, headers: {}, body: undefined });
      const deletes = inputsOf<DeleteCommandInput>(DeleteCommand);
      expect(deletes.map((input) => input.Key)).toEqual([keys.projectToken('phc_token_8'), keys.project(8)]);
      expect(deletes[0]?.ConditionExpression).toBe('attribute_not_exists(PK) OR project_id = :project');
    });

    it("moves the caller's current project elsewhere when it is the one deleted", async () => {
      // Prepare
      givenCaller({ projects: [aProject(7), aProject(8)] });
      ddb.on(DeleteCommand).resolves({});
      ddb.on(QueryCommand).resolves({ Items: [aProject(8)] });

      // Act
      await invoke(handler, httpEvent('DELETE', '/api/projects/7/', { headers: bearer }));

      // Assess
      const userUpdate = inputsOf<UpdateCommandInput>(UpdateCommand).find(
        (input) => input.Key?.PK === keys.user(caller.id).PK,
      );
      expect(userUpdate?.ExpressionAttributeValues).toEqual({ ':v0': 8 });
    });

    it('refuses a plain member with 403', async () => {
      givenCaller({ level: 1 });
      const response = await invoke(handler, httpEvent('DELETE', '/api/projects/7/', { headers: bearer }));
      expect(response).toMatchObject({ statusCode: 403, body: { code: 'permission_denied' } });
      expect(ddb.commandCalls(DeleteCommand)).toHaveLength(0);
    });
  });

  describe('unexpected failures', () => {
    it('answers a generic 500 and logs the error once with the request ids', async () => {
      // Prepare
      ddb.on(GetCommand, { Key: keys.project(7) }).rejects(new Error('table on fire'));
      const correlationIds: unknown[] = [];
      const log = jest.spyOn(logger, 'error').mockImplementation(() => {
        correlationIds.push(logger.getCorrelationId());
      });

      // Act
      const response = await invoke(handler, httpEvent('GET', '/api/projects/7/', { headers: bearer }));

      // Assess
      expect(response).toMatchObject({
        statusCode: 500,
        body: { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null },
      });
      expect(JSON.stringify(response.body)).not.toContain('fire');
      expect(log).toHaveBeenCalledTimes(1);
      // The line carries API Gateway's request id (and Lambda's, from the context).
      expect(correlationIds).toEqual(['api-request-1']);
      log.mockRestore();
    });
  });

  describe('paths', () => {
    it('answers 404 for a deeper path under a trailing-slash route, 405 when another method serves it', async () => {
      const deeper = await invoke(handler, httpEvent('GET', '/api/projects/7/nothing/', { headers: bearer }));
      expect(deeper).toMatchObject({ statusCode: 404, body: { code: 'not_found' } });

      const otherMethod = await invoke(
        handler,
        httpEvent('DELETE', '/api/projects/7/event_definitions/0bdbf14b-0eb5-553b-8e9c-c2f541ee8d04/', {
          headers: bearer,
        }),
      );
      expect(otherMethod).toMatchObject({
        statusCode: 405,
        body: { detail: 'Method "DELETE" not allowed.' },
      });
    });
  });
});
