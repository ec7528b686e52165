import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { GetCommandInput } from '@aws-sdk/lib-dynamodb';
import { handler } from '../../../functions/capture/handler';
import { sha256Hex } from '../../../functions/shared/auth/secrets';
import { keys } from '../../../functions/shared/db/keys';
import { projectOfToken } from '../../../functions/shared/public/projects';
import { apiGatewayEvent, base64FormBody, getDataRequest, invoke, jsJsonRequest } from './events';
import {
  ddb,
  freezeTime,
  getItemInputs,
  givenProjectToken,
  onlyMessage,
  projectItem,
  receivedAt,
  resetMocks,
  sentBatches,
  tableName,
  tokenLookup,
  uniqueToken,
} from './mocks';

const event = { event: 'e', distinct_id: 'd' };

const authenticationError = (code: string, detail: string) => ({
  statusCode: 401,
  body: { type: 'authentication_error', code, detail, attr: null },
});

describe('capture: where the token comes from and what it authorizes', () => {
  beforeEach(() => {
    freezeTime();
    resetMocks();
  });
  afterEach(() => jest.useRealTimers());

  describe('project tokens', () => {
    it.each([
      ['body api_key', (token: string) => ({ api_key: token, ...event })],
      ['body token', (token: string) => ({ token, ...event })],
      ['body $token', (token: string) => ({ $token: token, ...event })],
      ['properties.token', (token: string) => ({ ...event, properties: { token } })],
      ['batch envelope api_key', (token: string) => ({ api_key: token, batch: [event] })],
      [
        'first batch event when the envelope has none',
        (token: string) => ({ batch: [{ ...event, properties: { token } }] }),
      ],
    ])('finds the token in the %s', async (_where, build) => {
      // Prepare
      const token = uniqueToken();
      givenProjectToken(token);

      // Act
      const response = await invoke(handler, jsJsonRequest(build(token), '/capture/'));

      // Assess
      expect(response).toMatchObject({ statusCode: 200, body: { status: 1 } });
      expect(getItemInputs()).toEqual([tokenLookup(token)]);
      expect(onlyMessage().project_id).toBe(7);
    });

    it('finds the token in a form field next to data', async () => {
      const token = uniqueToken();
      givenProjectToken(token);
      const request = apiGatewayEvent({
        path: '/e/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: base64FormBody([event], { api_key: token }),
      });

      const response = await invoke(handler, request);

      expect(response.statusCode).toBe(200);
      expect(getItemInputs()).toEqual([tokenLookup(token)]);
    });

    it.each(['token', 'api_key'])('finds the token in the query parameter %s of a GET', async (name) => {
      const token = uniqueToken();
      givenProjectToken(token);

      const response = await invoke(
        handler,
        getDataRequest(JSON.stringify(event), '/i/v0/e/', { [name]: token }),
      );

      expect(response.statusCode).toBe(200);
      expect(getItemInputs()).toEqual([tokenLookup(token)]);
    });

    it('trims whitespace around the token', async () => {
      const token = uniqueToken();
      givenProjectToken(token);

      const response = await invoke(
        handler,
        jsJsonRequest({ api_key: ` ${token}\n`, ...event }, '/capture/'),
      );

      expect(response.statusCode).toBe(200);
    });

    it('looks a token up once within 5 seconds and again after', async () => {
      // Prepare
      const token = uniqueToken();
      givenProjectToken(token);
      const request = () => jsJsonRequest({ api_key: token, ...event }, '/capture/');

      // Act
      await invoke(handler, request());
      jest.setSystemTime(receivedAt.getTime() + 4_000);
      await invoke(handler, request());
      jest.setSystemTime(receivedAt.getTime() + 5_001);
      await invoke(handler, request());

      // Assess
      expect(getItemInputs()).toEqual([tokenLookup(token), tokenLookup(token)]);
    });

    it('keeps a valid token cached through a flood of random tokens', async () => {
      // Prepare: the old cache emptied itself at 10,000 entries, unknown tokens included.
      // One behaviour that answers by key: a behaviour per token (`givenProjectToken`) has sinon
      // compare each of the 12,000 lookups with its matcher, most of the test's CPU.
      const token = uniqueToken();
      const item = { ...keys.projectToken(token), ...projectItem() };
      ddb
        .on(GetCommand)
        .callsFake((input: GetCommandInput) => (input.Key?.PK === item.PK ? { Item: item } : {}));
      await projectOfToken(tableName, token);

      // Act
      for (let i = 0; i < 12_000; i++) await projectOfToken(tableName, `phc_random_${i}`);
      const after = await projectOfToken(tableName, token);

      // Assess: the valid token was read once, the random ones once each
      expect(after?.project_id).toBe(7);
      expect(getItemInputs().filter((input) => input.Key?.PK === tokenLookup(token).Key?.PK)).toHaveLength(1);
      expect(getItemInputs()).toHaveLength(12_001);
    });

    it('returns 401 missing_api_key when no token is anywhere', async () => {
      const response = await invoke(handler, jsJsonRequest(event, '/capture/'));

      expect(response).toMatchObject(
        authenticationError(
          'missing_api_key',
          'API key not provided. You can find your project API key in PostHog project settings.',
        ),
      );
      expect(getItemInputs()).toEqual([]);
    });

    it('does not read query tokens of a POST (Django reads them for GET only)', async () => {
      const token = uniqueToken();
      givenProjectToken(token);

      const response = await invoke(
        handler,
        apiGatewayEvent({ path: '/e/', query: { token }, body: JSON.stringify(event) }),
      );

      expect(response.body).toMatchObject({ code: 'missing_api_key' });
    });

    it('returns 401 not_string when the token is not a string', async () => {
      const response = await invoke(
        handler,
        jsJsonRequest({ api_key: { nested: 'x' }, batch: [event] }, '/batch/'),
      );

      expect(response).toMatchObject(
        authenticationError('not_string', 'Provided API key is not valid: not_string'),
      );
    });

    it('returns 401 invalid_api_key for an unknown project key', async () => {
      const token = uniqueToken();

      const response = await invoke(handler, jsJsonRequest({ api_key: token, ...event }, '/capture/'));

      expect(response).toMatchObject(
        authenticationError(
          'invalid_api_key',
          'Project API key invalid. You can find your project API key in PostHog project settings.',
        ),
      );
      expect(getItemInputs()).toEqual([tokenLookup(token)]);
      expect(sentBatches()).toEqual([]);
    });

    it('answers invalid_api_key for an absurdly long token without looking it up', async () => {
      const response = await invoke(
        handler,
        jsJsonRequest({ api_key: 'x'.repeat(5000), ...event }, '/capture/'),
      );

      expect(response.body).toMatchObject({ code: 'invalid_api_key' });
      expect(getItemInputs()).toEqual([]);
    });

    it('returns 503 fetch_team_fail when the table cannot be read, so the SDK retries', async () => {
      // Prepare
      const token = uniqueToken();
      ddb.on(GetCommand, tokenLookup(token)).rejects(new Error('ProvisionedThroughputExceededException'));

      // Act
      const response = await invoke(handler, jsJsonRequest({ api_key: token, ...event }, '/capture/'));

      // Assess
      expect(response).toMatchObject({
        statusCode: 503,
        headers: { 'Retry-After': '5' },
        body: {
          type: 'server_error',
          code: 'fetch_team_fail',
          detail: 'Unable to fetch team from database.',
          attr: null,
        },
      });
    });
  });

  describe('personal API keys with a project_id', () => {
    const userId = 42;
    const organization = 'org-of-42';

    /** A personal key of user 42, who is a member of `org-of-42`, which owns project 12. */
    function givenPersonalKey(key: string): void {
      ddb.on(GetCommand, { TableName: tableName, Key: keys.personalApiKey(sha256Hex(key)) }).resolves({
        Item: {
          id: 'key-1',
          user_id: userId,
          label: 'ci',
          mask_value: 'phx_...',
          created_at: '',
          last_used_at: null,
        },
      });
      ddb.on(GetCommand, { TableName: tableName, Key: keys.user(userId) }).resolves({
        Item: { id: userId, current_organization_id: organization },
      });
      ddb.on(GetCommand, { TableName: tableName, Key: keys.project(12) }).resolves({
        Item: { ...keys.project(12), id: 12, organization, anonymize_ips: false },
      });
      ddb.on(GetCommand, { TableName: tableName, Key: keys.project(13) }).resolves({
        Item: { ...keys.project(13), id: 13, organization: 'someone-elses', anonymize_ips: false },
      });
      ddb.on(GetCommand, { TableName: tableName, Key: keys.membership(userId, organization) }).resolves({
        Item: { organization_id: organization, user_id: userId, level: 8 },
      });
    }

    const lookups = (key: string, projectId: number, organizationId: string) => [
      tokenLookup(key),
      { TableName: tableName, Key: keys.personalApiKey(sha256Hex(key)) },
      { TableName: tableName, Key: keys.user(userId) },
      { TableName: tableName, Key: keys.project(projectId) },
      { TableName: tableName, Key: keys.membership(userId, organizationId) },
    ];

    it.each([
      ['query', (key: string) => jsJsonRequestWithQuery({ api_key: key, ...event }, { project_id: '12' })],
      ['body', (key: string) => jsJsonRequest({ api_key: key, project_id: 12, ...event }, '/capture/')],
      [
        'batch envelope',
        (key: string) => jsJsonRequest({ api_key: key, project_id: '12', batch: [event] }, '/batch/'),
      ],
      [
        'form',
        (key: string) =>
          apiGatewayEvent({
            path: '/e/',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: base64FormBody(event, { api_key: key, project_id: '12' }),
          }),
      ],
    ])(
      'accepts a personal key with a project_id in the %s for a project of its organizations',
      async (_where, build) => {
        // Prepare
        const key = uniqueToken('phx');
        givenPersonalKey(key);

        // Act
        const response = await invoke(handler, build(key));

        // Assess
        expect(response).toMatchObject({ statusCode: 200, body: { status: 1 } });
        expect(getItemInputs()).toEqual(lookups(key, 12, organization));
        expect(onlyMessage().project_id).toBe(12);
      },
    );

    it.each(['twelve', '1.5', '12abc'])(
      'returns 400 invalid_project for project_id %p',
      async (projectId) => {
        const key = uniqueToken('phx');

        const response = await invoke(
          handler,
          jsJsonRequestWithQuery({ api_key: key, ...event }, { project_id: projectId }),
        );

        expect(response).toMatchObject({
          statusCode: 400,
          body: {
            type: 'validation_error',
            code: 'invalid_project',
            detail: 'Invalid Project ID.',
            attr: 'project_id',
          },
        });
      },
    );

    it('returns 400 invalid_project for a project_id that is an object', async () => {
      const key = uniqueToken('phx');

      const response = await invoke(
        handler,
        jsJsonRequest({ api_key: key, project_id: { id: 12 }, ...event }, '/e/'),
      );

      expect(response.body).toMatchObject({ code: 'invalid_project', attr: 'project_id' });
    });

    it('returns 401 invalid_personal_api_key for an unknown personal key', async () => {
      const key = uniqueToken('phx');

      const response = await invoke(
        handler,
        jsJsonRequestWithQuery({ api_key: key, ...event }, { project_id: '12' }),
      );

      expect(response).toMatchObject(
        authenticationError('invalid_personal_api_key', 'Invalid Personal API key.'),
      );
      expect(getItemInputs()).toEqual([
        tokenLookup(key),
        { TableName: tableName, Key: keys.personalApiKey(sha256Hex(key)) },
      ]);
    });

    it("returns 401 'No team found for API Key' for a project outside the key's organizations", async () => {
      const key = uniqueToken('phx');
      givenPersonalKey(key);

      const response = await invoke(
        handler,
        jsJsonRequestWithQuery({ api_key: key, ...event }, { project_id: '13' }),
      );

      expect(response).toMatchObject(
        authenticationError('invalid_personal_api_key', 'No team found for API Key'),
      );
      expect(getItemInputs()).toEqual(lookups(key, 13, 'someone-elses'));
      expect(sentBatches()).toEqual([]);
    });

    it("returns 401 'No team found for API Key' for a project that does not exist", async () => {
      const key = uniqueToken('phx');
      givenPersonalKey(key);

      const response = await invoke(
        handler,
        jsJsonRequestWithQuery({ api_key: key, ...event }, { project_id: '404' }),
      );

      expect(response.body).toMatchObject({
        code: 'invalid_personal_api_key',
        detail: 'No team found for API Key',
      });
    });

    it('prefers a project token over a project_id', async () => {
      const token = uniqueToken();
      givenProjectToken(token, projectItem({ project_id: 3 }));

      const response = await invoke(
        handler,
        jsJsonRequestWithQuery({ api_key: token, ...event }, { project_id: 'x' }),
      );

      expect(response.statusCode).toBe(200);
      expect(onlyMessage().project_id).toBe(3);
    });
  });
});

function jsJsonRequestWithQuery(payload: unknown, query: Record<string, string>) {
  return apiGatewayEvent({
    path: '/capture/',
    query,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
}
