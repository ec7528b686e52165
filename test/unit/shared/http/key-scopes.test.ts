import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { sha256Hex } from '../../../../functions/shared/auth/secrets';
import { keys } from '../../../../functions/shared/db/keys';
import { createHttpHandler } from '../../../../functions/shared/http/handler';
import { createPrivateHttpHandler } from '../../../../functions/shared/http/private-handler';
import { privateRoute } from '../../../../functions/shared/http/private-route';
import type { RouteFunction } from '../../../../functions/shared/http/types';
import { privateApiConfig } from '../../../../functions/shared/config';
import { httpEvent, invoke } from '../../../helpers/http-event';
import { bearer, callerKey, ddb, givenCaller } from '../../../helpers/private-api-mocks';

/** The private handler factory's key scope middleware, around route functions that do not check keys themselves. */
const keyRead = { Key: keys.personalApiKey(sha256Hex(callerKey)) };

function givenScopes(scopes: string[]): void {
  givenCaller();
  ddb.on(GetCommand, keyRead).resolves({ Item: { ...keyRead.Key, id: 'key-1', user_id: 3, scopes } });
}

const answered = jest.fn<ReturnType<RouteFunction>, Parameters<RouteFunction>>(async () => ({
  statusCode: 200,
  headers: {},
  body: '{}',
}));

const unchecked = createPrivateHttpHandler({
  routes: { 'GET /api/projects/{proxy+}': answered, 'POST /capture/{proxy+}': answered },
});

beforeEach(() => answered.mockClear());

describe('the key scope middleware of the HTTP handler factory', () => {
  it('answers 401 before a private route function runs without a key', async () => {
    givenScopes(['*']);
    const response = await invoke(unchecked, httpEvent('GET', '/api/projects/'));
    expect(response).toMatchObject({ statusCode: 401, body: { code: 'not_authenticated' } });
    expect(answered).not.toHaveBeenCalled();
  });

  it("answers PostHog's 403 before a private route function runs for a key without its scope", async () => {
    givenScopes(['cohort:write']);
    const response = await invoke(unchecked, httpEvent('GET', '/api/projects/', { headers: bearer }));
    expect(response).toMatchObject({
      statusCode: 403,
      body: { code: 'permission_denied', detail: "API key missing required scope 'project:read'" },
    });
    expect(answered).not.toHaveBeenCalled();
  });

  it('lets a key with the scope through, and public routes without any key', async () => {
    givenScopes(['project:write']);
    expect(
      (await invoke(unchecked, httpEvent('GET', '/api/projects/', { headers: bearer }))).statusCode,
    ).toBe(200);
    expect((await invoke(unchecked, httpEvent('POST', '/capture/'))).statusCode).toBe(200);
    expect(answered).toHaveBeenCalledTimes(2);
  });

  it('refuses to build a handler without the scope check for a group that serves a private route', () => {
    expect(() => createHttpHandler({ routes: { 'GET /api/projects/{proxy+}': answered } })).toThrow(
      'GET /api/projects/{proxy+} declares key scopes: serve it with createPrivateHttpHandler',
    );
    expect(() => createHttpHandler({ routes: { 'POST /capture/{proxy+}': answered } })).not.toThrow();
  });

  it('reads the key once: privateRoute takes the caller the middleware found', async () => {
    // Prepare
    givenScopes(['project:read']);
    const checked = createPrivateHttpHandler({
      config: privateApiConfig(),
      routes: {
        'GET /api/projects/{proxy+}': privateRoute(async ({ caller }) => ({
          statusCode: 200,
          headers: {},
          body: JSON.stringify(caller.key.scopes),
        })),
      },
    });

    // Act
    const response = await invoke(checked, httpEvent('GET', '/api/projects/', { headers: bearer }));

    // Assess
    expect(response).toMatchObject({ statusCode: 200, body: ['project:read'] });
    expect(ddb.commandCalls(GetCommand, keyRead)).toHaveLength(1);
  });
});
