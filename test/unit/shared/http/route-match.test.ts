import type { Route } from '../../../../functions/routes';
import { RouteMatcher } from '../../../../functions/shared/http/route-match';

const routes: Route[] = [
  { group: 'events', method: 'GET', path: '/api/projects/{project_id}/events' },
  { group: 'events', method: 'GET', path: '/api/projects/{project_id}/events/{proxy+}' },
  { group: 'events', method: 'GET', path: '/api/projects/{project_id}/events/values/{proxy+}' },
  { group: 'capture', method: 'POST', path: '/capture' },
  { group: 'capture', method: 'POST', path: '/capture/{proxy+}' },
  { group: 'fallback', method: 'ANY', path: '$default' },
];

describe('RouteMatcher', () => {
  const matcher = new RouteMatcher(routes);

  it('captures path parameters', () => {
    expect(matcher.match('GET', '/api/projects/42/events')).toEqual({
      route: routes[0],
      pathParameters: { project_id: '42' },
    });
  });

  it('serves a trailing slash with the greedy route, with no proxy parameter', () => {
    expect(matcher.match('POST', '/capture/')).toEqual({ route: routes[4], pathParameters: {} });
    expect(matcher.match('GET', '/api/projects/42/events/')).toEqual({
      route: routes[1],
      pathParameters: { project_id: '42' },
    });
  });

  it('decodes percent-encoded parameters', () => {
    expect(matcher.match('GET', '/api/projects/%40current/events')?.pathParameters).toEqual({
      project_id: '@current',
    });
  });

  it('passes a parameter that is not valid percent-encoded UTF-8 as sent', () => {
    // Prepare
    const undecodable = ['%', '%E0%A4%A', '%ED%A0%80', '%FF%FE'];

    // Act
    const matched = undecodable.map((segment) => matcher.match('GET', `/api/projects/${segment}/events`));

    // Assess
    expect(matched.map((match) => match?.pathParameters.project_id)).toEqual(undecodable);
    expect(matched.every((match) => match?.route === routes[0])).toBe(true);
  });

  it('prefers literal segments over variables', () => {
    expect(matcher.match('GET', '/api/projects/42/events/values/')?.route).toBe(routes[2]);
  });

  it('does not let a plain parameter span segments', () => {
    expect(matcher.match('GET', '/api/projects/1/2/events')?.route.group).toBe('fallback');
  });

  it('sends an unmatched method or path to $default', () => {
    expect(matcher.match('GET', '/capture/')?.route.path).toBe('$default');
    expect(matcher.match('GET', '/nope')?.route.path).toBe('$default');
  });

  it('tells whether a path exists under some method', () => {
    expect(matcher.pathExists('/capture/')).toBe(true);
    expect(matcher.pathExists('/capturex')).toBe(false);
  });
});
