import { canonicalPath, routeKey, routeMap, routes } from '../../functions/routes';

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
