import { canonicalPath, isPrivateRoute, routeKey, routeMap, routes } from '../../functions/routes';
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

describe('routeMap', () => {
  const list = async () => ({ statusCode: 200, headers: {} });

  it('keys a group’s functions by both route keys of each path', () => {
    const map = routeMap('schema', { 'GET /api/schema/': list });
    expect(Object.keys(map).sort()).toEqual(['GET /api/schema', 'GET /api/schema/{proxy+}']);
  });

  it('fails when a row of the group has no function', () => {
    expect(() => routeMap('events', {})).toThrow(
      'No route function for GET /api/projects/{project_id}/events/',
    );
  });

  it('fails when a function has no row', () => {
    expect(() => routeMap('schema', { 'GET /api/schema/': list, 'GET /nowhere/': list })).toThrow(
      'Route functions without a route in schema: GET /nowhere/',
    );
  });
});
