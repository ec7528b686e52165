import type { Route } from '../../../../functions/routes';
import { isPrivateRoute, routes } from '../../../../functions/routes';
import { RouteMatcher } from '../../../../functions/shared/http/route-match';

describe('isPrivateRoute', () => {
  const row = (path: string, group: Route['group'] = 'projects'): Route => ({ group, method: 'GET', path });

  it('holds for /api/ routes and the unprefixed current-user route, both slash spellings', () => {
    expect(isPrivateRoute(row('/api/projects'))).toBe(true);
    expect(isPrivateRoute(row('/api/projects/{project_id}/{proxy+}'))).toBe(true);
    expect(isPrivateRoute(row('/users/{user_uuid}/{proxy+}', 'users'))).toBe(true);
  });

  it('does not hold for public endpoints, the OpenAPI document, or $default', () => {
    expect(isPrivateRoute(row('/batch/{proxy+}', 'capture'))).toBe(false);
    expect(isPrivateRoute(row('/api/schema', 'schema'))).toBe(false);
    expect(isPrivateRoute(row('/api/schema/{proxy+}', 'schema'))).toBe(false);
    expect(isPrivateRoute({ group: 'fallback', method: 'ANY', path: '$default' })).toBe(false);
  });

  it('covers every route of the private API groups', () => {
    const privateGroups = new Set(['events', 'projects', 'users', 'personal_api_keys', 'event_definitions']);
    for (const route of routes.filter((candidate) => privateGroups.has(candidate.group)))
      expect({ route, private: isPrivateRoute(route) }).toEqual({ route, private: true });
  });
});

describe('RouteMatcher.pathExists with the route table', () => {
  const matcher = new RouteMatcher(routes);

  it('knows the paths the API serves, with or without their trailing slash', () => {
    expect(matcher.pathExists('/api/projects/')).toBe(true);
    expect(matcher.pathExists('/api/projects/7')).toBe(true);
    expect(matcher.pathExists('/api/projects/@current/event_definitions/abc/')).toBe(true);
  });

  it('does not let a trailing-slash route stand for deeper paths', () => {
    expect(matcher.pathExists('/api/projects/7/nothing/')).toBe(false);
    expect(matcher.pathExists('/api/projects/7/event_definitions/x/y/')).toBe(false);
  });
});
