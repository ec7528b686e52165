/**
 * THE route table: every HTTP route Flock serves, as plain data.
 *
 * The CDK stateless stack creates one Lambda per `group` and one API Gateway route per row; the local
 * server (`npm start`) matches requests against the same rows. A CDK test checks the synthesized API
 * has exactly these routes, so the two can never disagree.
 *
 * Paths use API Gateway's template syntax (`{project_id}`). PostHog accepts its paths with and without
 * the trailing slash, and API Gateway matches paths exactly, so both spellings are listed.
 * A request that matches no row reaches `$default` (the `fallback` group), which answers 404, or 405
 * when the path exists under another method, in the documented error shape.
 */

/** One Lambda function per group (see `functions/<group>/handler.ts`). */
export const httpGroups = ['capture', 'events', 'fallback'] as const;
export type HttpGroup = (typeof httpGroups)[number];

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'OPTIONS';

export interface Route {
  readonly group: HttpGroup;
  /** `ANY` only for the `$default` catch-all. */
  readonly method: HttpMethod | 'ANY';
  /** API Gateway route path, or `$default`. */
  readonly path: string;
}

/** Both spellings of a path: `/capture/` and `/capture`. */
function bothSlashes(path: string): string[] {
  const bare = path.replace(/\/+$/, '');
  return [`${bare}/`, bare];
}

function rows(group: HttpGroup, methods: readonly HttpMethod[], paths: readonly string[]): Route[] {
  return paths.flatMap((path) =>
    bothSlashes(path).flatMap((p) => methods.map((method) => ({ group, method, path: p }))),
  );
}

/** Public capture endpoints: every path PostHog's SDKs post events to (reference §1.1). */
export const capturePaths = ['/capture/', '/batch/', '/e/', '/i/v0/e/', '/track/', '/engage/'] as const;

export const routes: readonly Route[] = [
  ...rows('capture', ['POST', 'GET', 'OPTIONS'], capturePaths),
  ...rows('events', ['GET'], ['/api/projects/{project_id}/events/']),
  { group: 'fallback', method: 'ANY', path: '$default' },
];

/** `GET /capture/` → the API Gateway route key of a row. */
export function routeKey(route: Route): string {
  return route.path === '$default' ? '$default' : `${route.method} ${route.path}`;
}

/** Routes of the private API (`/api/...`): every one of them demands a personal API key. */
export function isPrivateRoute(route: Route): boolean {
  return route.path.startsWith('/api/');
}
