import {
  bindOperations,
  canonicalPath,
  isPrivateRoute,
  operations,
  routeKey,
  routes,
} from '../../functions/routes';
import { isKeyScope } from '../../functions/shared/auth/scopes';

describe('the route table', () => {
  it('lists every path with and without its trailing slash, never ending a path in "/"', () => {
    for (const route of routes.filter((row) => row.path !== '$default')) {
      expect(route.path.endsWith('/')).toBe(false);
      const twin = route.path.endsWith('/{proxy+}')
        ? route.path.slice(0, -'/{proxy+}'.length)
        : `${route.path}/{proxy+}`;
      expect(
        routes.some((row) => row.method === route.method && row.path === twin && row.group === route.group),
      ).toBe(true);
    }
  });

  it('has one row per route key', () => {
    const keys = routes.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('spells both forms of a path the way PostHog documents it', () => {
    expect(canonicalPath({ group: 'capture', method: 'POST', path: '/batch' })).toBe('/batch/');
    expect(canonicalPath({ group: 'capture', method: 'POST', path: '/batch/{proxy+}' })).toBe('/batch/');
  });
});

describe('the scopes of the route table', () => {
  // Outside /api/ but authenticated by a personal API key: the server SDKs' local evaluation.
  const personalKeyPaths = new Set(['/flags/definitions/']);
  const needsKey = (route: (typeof routes)[number]) =>
    isPrivateRoute(route) || personalKeyPaths.has(canonicalPath(route));

  it('declares the scopes of every route a personal API key calls: none is left unscoped', () => {
    const unscoped = routes.filter((route) => needsKey(route) && !route.scopes?.length).map(routeKey);
    expect(unscoped).toEqual([]);
  });

  it('declares none on public routes, and only scopes a key can carry', () => {
    for (const route of routes) {
      if (!needsKey(route))
        expect({ key: routeKey(route), scopes: route.scopes }).toEqual({ key: routeKey(route) });
      for (const scope of route.scopes ?? []) expect(isKeyScope(scope)).toBe(true);
    }
  });

  it('asks for :read on GET and :write on any change, as PostHog derives them from the action', () => {
    const scopes = (method: string, path: string) =>
      routes.find((route) => route.method === method && canonicalPath(route) === path)?.scopes;
    expect(scopes('GET', '/api/projects/{project_id}/feature_flags/')).toEqual(['feature_flag:read']);
    expect(scopes('POST', '/api/projects/{project_id}/feature_flags/')).toEqual(['feature_flag:write']);
    expect(scopes('DELETE', '/api/projects/{project_id}/cohorts/{id}/')).toEqual(['cohort:write']);
    expect(scopes('GET', '/api/projects/{project_id}/events/')).toEqual(['query:read']);
    expect(scopes('GET', '/api/projects/{project_id}/cohorts/{id}/persons/')).toEqual([
      'cohort:read',
      'person:read',
    ]);
    expect(scopes('PATCH', '/api/projects/{project_id}/plugin_configs/rearrange/')).toEqual(['plugin:write']);
    expect(scopes('GET', '/api/feature_flag/local_evaluation/')).toEqual(['feature_flag:read']);
  });
});

describe('bindOperations', () => {
  const list = async () => ({ statusCode: 200, headers: {} });

  it('keys a group’s functions by both route keys of each operation', () => {
    const map = bindOperations('schema', { schema_retrieve: list });
    expect(Object.keys(map).sort()).toEqual(['GET /api/schema', 'GET /api/schema/{proxy+}']);
  });

  it('binds one function to every operation that names it', () => {
    const capture = async () => ({ statusCode: 200, headers: {} });
    const preflight = async () => ({ statusCode: 204, headers: {} });
    const map = bindOperations('capture', { capture, preflight });
    expect(map['POST /batch/{proxy+}']).toBe(capture);
    expect(map['GET /i/v0/e']).toBe(capture);
    expect(map['OPTIONS /e']).toBe(preflight);
    expect(Object.keys(map)).toHaveLength(operations.filter((op) => op.group === 'capture').length * 2);
  });

  it('fails when an operation of the group has no function', () => {
    expect(() => bindOperations('events', {})).toThrow('No route function for events_list (group events)');
  });

  it('fails when a function has no operation', () => {
    expect(() => bindOperations('schema', { schema_retrieve: list, nowhere: list })).toThrow(
      'Route functions without an operation in schema: nowhere',
    );
  });

  it('reads only the functions given, not what an object inherits', () => {
    expect(() =>
      bindOperations('schema', Object.create({ schema_retrieve: list }) as Record<string, typeof list>),
    ).toThrow('No route function for schema_retrieve');
  });
});

describe('the operation table', () => {
  it('declares each operation id once, and each method and path once', () => {
    const ids = operations.map((operation) => operation.id);
    expect(new Set(ids).size).toBe(ids.length);
    const keys = operations.map((operation) => `${operation.method} ${operation.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('writes every path as PostHog documents it, with its trailing slash', () => {
    for (const operation of operations) expect(operation.path).toMatch(/^\/.*\/$/);
  });
});
