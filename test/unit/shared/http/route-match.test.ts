import type { Route } from '../../../../functions/routes';
import { RouteMatcher } from '../../../../functions/shared/http/route-match';

const routes: Route[] = [
  { group: 'events', method: 'GET', path: '/api/projects/{project_id}/events/' },
  { group: 'events', method: 'GET', path: '/api/projects/{project_id}/events/values/' },
  { group: 'capture', method: 'POST', path: '/capture/' },
  { group: 'fallback', method: 'ANY', path: '$default' },
];

describe('RouteMatcher', () => {
  const matcher = new RouteMatcher(routes);

  it('captures path parameters', () => {
    expect(matcher.match('GET', '/api/projects/42/events/')).toEqual({
      route: routes[0],
      pathParameters: { project_id: '42' },
    });
  });

  it('does not let a parameter span segments', () => {
    expect(matcher.match('GET', '/api/projects/1/2/events/')?.route.group).toBe('fallback');
  });

  it('sends an unmatched method or path to $default', () => {
    expect(matcher.match('GET', '/capture/')?.route.path).toBe('$default');
    expect(matcher.match('GET', '/nope')?.route.path).toBe('$default');
  });

  it('tells whether a path exists under some method', () => {
    expect(matcher.pathExists('/capture/')).toBe(true);
    expect(matcher.pathExists('/capture/x')).toBe(false);
  });
});
