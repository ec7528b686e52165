import { isPrivateRoute, routeKey, routes } from '../../../functions/routes';
import type { Route } from '../../../functions/routes';
import { privateApi, rawRequest } from '../../helpers/api';
import type { LocalServer } from '../../helpers/local-server';
import { sharedLocalServer } from '../../helpers/local-server';

/**
 * The shared framework of the private API, through the local server: authentication on every
 * private route, the error shape everywhere, bodies, pagination, and the OpenAPI document.
 */
let server: LocalServer;

beforeAll(async () => {
  server = await sharedLocalServer('private API framework', { organization: true });
});

afterAll(async () => {
  await server.stop();
});

const someUuid = '0bdbf14b-0eb5-553b-8e9c-c2f541ee8d04';

/** A request path for a route-table row: parameters filled, the greedy variable as its trailing slash. */
function concretePath(route: Route, projectId: number): string {
  return route.path
    .replace('/{proxy+}', '/')
    .replace('{project_id}', String(projectId))
    .replace('{user_uuid}', '@me')
    .replace('{organization_id}', '@current')
    .replace('{id}', someUuid);
}

const privateRoutes = routes.filter(isPrivateRoute);

describe('authentication on every private route of the route table', () => {
  it('has private routes to walk', () => {
    expect(privateRoutes.length).toBeGreaterThanOrEqual(30);
  });

  it.each(privateRoutes.map((route) => [routeKey(route), route] as const))(
    '%s demands a personal API key: 401 without one, 401 for an invalid one',
    async (_key, route) => {
      // Prepare
      const path = concretePath(route, server.credentials.projectId);
      const body = route.method === 'POST' || route.method === 'PATCH' ? '{}' : undefined;
      const json: Record<string, string> = body ? { 'content-type': 'application/json' } : {};

      // Act
      const anonymous = await rawRequest(server, route.method, path, { headers: json, body });
      const invalid = await rawRequest(server, route.method, path, {
        headers: { ...json, authorization: 'Bearer phx_not_a_real_key' },
        body,
      });

      // Assess
      expect({ path, status: anonymous.status, body: anonymous.body }).toEqual({
        path,
        status: 401,
        body: {
          type: 'authentication_error',
          code: 'not_authenticated',
          detail: 'Authentication credentials were not provided.',
          attr: null,
        },
      });
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
      expect({ path, status: invalid.status, body: invalid.body }).toEqual({
        path,
        status: 401,
        body: {
          type: 'authentication_error',
          code: 'invalid_personal_api_key',
          detail: 'Invalid Personal API key.',
          attr: null,
        },
      });
    },
  );
});

describe('where the personal API key may come from', () => {
  it('accepts it in the personal_api_key query parameter', async () => {
    const response = await rawRequest(
      server,
      'GET',
      `/api/projects/?personal_api_key=${server.credentials.personalApiKey}`,
    );
    expect(response.status).toBe(200);
  });

  it('accepts it in the personal_api_key field of a JSON body', async () => {
    const response = await rawRequest(server, 'PATCH', '/api/users/@me/', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ personal_api_key: server.credentials.personalApiKey }),
    });
    expect(response.status).toBe(200);
  });

  it('records when a key was last used', async () => {
    await privateApi(server).get('/api/projects/');
    const keys = await privateApi(server).get<{ results: { last_used_at: string | null }[] }>(
      '/api/personal_api_keys/',
    );
    expect(keys.body.results[0]?.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});

describe('errors in {type, code, detail, attr}', () => {
  it('answers 404 not_found for an unknown route', async () => {
    const response = await privateApi(server).get('/api/nothing/here/');
    expect(response).toMatchObject({
      status: 404,
      body: { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null },
    });
  });

  it('answers 404 for a path below a resource that has none', async () => {
    const response = await privateApi(server).get(`/api/projects/${server.credentials.projectId}/nothing/`);
    expect(response).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('answers 405 method_not_allowed for a method the path is not served with', async () => {
    const put = await privateApi(server).request('PUT', `/api/projects/${server.credentials.projectId}/`, {});
    expect(put).toMatchObject({
      status: 405,
      body: {
        type: 'invalid_request',
        code: 'method_not_allowed',
        detail: 'Method "PUT" not allowed.',
        attr: null,
      },
    });
    const deleteDefinition = await privateApi(server).delete(
      `/api/projects/${server.credentials.projectId}/event_definitions/${someUuid}/`,
    );
    expect(deleteDefinition).toMatchObject({ status: 405, body: { code: 'method_not_allowed' } });
  });

  it('answers 415 unsupported_media_type for a body that is not JSON', async () => {
    const response = await rawRequest(server, 'POST', '/api/projects/', {
      headers: { authorization: `Bearer ${server.credentials.personalApiKey}`, 'content-type': 'text/plain' },
      body: 'name=x',
    });
    expect(response).toMatchObject({
      status: 415,
      body: {
        type: 'invalid_request',
        code: 'unsupported_media_type',
        detail: 'Unsupported media type "text/plain" in request.',
        attr: null,
      },
    });
  });

  it('answers 400 parse_error for malformed JSON', async () => {
    const response = await rawRequest(server, 'PATCH', `/api/projects/${server.credentials.projectId}/`, {
      headers: {
        authorization: `Bearer ${server.credentials.personalApiKey}`,
        'content-type': 'application/json',
      },
      body: '{"name": ',
    });
    expect(response).toMatchObject({
      status: 400,
      body: { type: 'invalid_request', code: 'parse_error', attr: null },
    });
    expect((response.body as { detail: string }).detail).toMatch(/^JSON parse error - /);
  });

  it('answers 400 validation_error naming the field', async () => {
    const response = await privateApi(server).patch(`/api/projects/${server.credentials.projectId}/`, {
      person_display_name_properties: 'email',
    });
    expect(response).toMatchObject({
      status: 400,
      body: { type: 'validation_error', code: 'invalid_input', attr: 'person_display_name_properties' },
    });
  });

  it('answers 400 validation_error for a body that is not an object', async () => {
    const response = await privateApi(server).patch(`/api/projects/${server.credentials.projectId}/`, [1]);
    expect(response).toMatchObject({ status: 400, body: { type: 'validation_error', attr: null } });
  });
});

describe('pagination', () => {
  beforeAll(async () => {
    // Three projects in the organization: the bootstrapped one and two more.
    for (const name of ['Page two', 'Page three']) await privateApi(server).post('/api/projects/', { name });
  });

  it('answers 400 validation_error for a non-integer limit or offset', async () => {
    for (const [query, attr] of [
      ['limit=ten', 'limit'],
      ['limit=2.5', 'limit'],
      ['offset=-1', 'offset'],
    ]) {
      const response = await privateApi(server).get(`/api/projects/?${query}`);
      expect({ query, status: response.status, body: response.body }).toMatchObject({
        query,
        status: 400,
        body: { type: 'validation_error', attr },
      });
    }
  });

  it('pages with limit and offset, linking next and previous by absolute URLs of the request', async () => {
    // Act
    const first = await privateApi(server).get<{
      count: number;
      next: string | null;
      previous: string | null;
      results: { name: string }[];
    }>('/api/projects/?limit=2&extra=kept');

    // Assess
    const base = server.credentials.apiUrl;
    expect(first.body).toMatchObject({
      count: 3,
      next: `${base}/api/projects/?limit=2&extra=kept&offset=2`,
      previous: null,
    });
    expect(first.body.results).toHaveLength(2);

    const second = await privateApi(server).get<typeof first.body>(first.body.next!.slice(base.length));
    expect(second.body).toMatchObject({
      count: 3,
      next: null,
      previous: `${base}/api/projects/?limit=2&extra=kept`,
    });
    expect(second.body.results.map((project) => project.name)).toEqual(['Page three']);
  });

  it('defaults to pages of 100', async () => {
    const response = await privateApi(server).get<{ count: number; next: null; results: unknown[] }>(
      '/api/projects/',
    );
    expect(response.body).toMatchObject({ count: 3, next: null, previous: null });
  });
});

describe('GET /api/schema/', () => {
  it('serves the OpenAPI 3.1 document without credentials, with this server as its server', async () => {
    const response = await rawRequest<{
      openapi: string;
      servers: { url: string }[];
      paths: Record<string, unknown>;
    }>(server, 'GET', '/api/schema/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('openapi+json');
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body.servers).toEqual([{ url: server.credentials.apiUrl }]);
    expect(Object.keys(response.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/projects/',
        '/api/projects/{project_id}/',
        '/api/users/{user_uuid}/',
        '/api/personal_api_keys/',
        '/api/projects/{project_id}/event_definitions/{id}/',
      ]),
    );
  });
});
