/**
 * THE route table: every HTTP route Flock serves, as plain data.
 *
 * The CDK stateless stack creates one Lambda per `group` and one API Gateway route per row; the local
 * server (`npm start`) matches requests against the same rows. A CDK test checks the synthesized API
 * has exactly these routes, so the two can never disagree.
 *
 * Paths use API Gateway's template syntax (`{project_id}`). PostHog accepts its paths with and without
 * the trailing slash, and the SDKs use both. An HTTP API route path cannot end in `/`, and whether
 * `/batch` also matches a request for `/batch/` is not something to rely on, so every path is listed
 * twice: `/batch` and `/batch/{proxy+}`, the only legal route that matches `/batch/`. The handlers
 * refuse what the greedy variable would also take (`/batch/x`) with a 404.
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

/** The greedy variable standing for a trailing slash. */
export const trailingSlash = '/{proxy+}';

/** Both spellings of a path: `/capture` and `/capture/{proxy+}` (which serves `/capture/`). */
function bothSlashes(path: string): string[] {
  const bare = path.replace(/\/+$/, '');
  return [bare, `${bare}${trailingSlash}`];
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

/** The API Gateway route key of a row: `GET /capture/{proxy+}`, or `$default`. */
export function routeKey(route: Route): string {
  return route.path === '$default' ? '$default' : `${route.method} ${route.path}`;
}

/** The path a row serves, spelled as PostHog documents it: `/capture` and `/capture/{proxy+}` → `/capture/`. */
export function canonicalPath(route: Route): string {
  const bare = route.path.endsWith(trailingSlash) ? route.path.slice(0, -trailingSlash.length) : route.path;
  return `${bare}/`;
}

/**
 * A group's route functions keyed by route key, from functions keyed by `METHOD canonical path`
 * (`GET /api/projects/{project_id}/events/`). Fails at cold start if a row of the group has no
 * function or a function no row, so the table and the handlers cannot drift apart.
 */
export function routeMap<F>(group: HttpGroup, functions: Readonly<Record<string, F>>): Record<string, F> {
  const map: Record<string, F> = {};
  const used = new Set<string>();
  for (const route of routes.filter((row) => row.group === group)) {
    const name = route.path === '$default' ? '$default' : `${route.method} ${canonicalPath(route)}`;
    const fn = functions[name];
    if (!fn) throw new Error(`No route function for ${name} (group ${group})`);
    map[routeKey(route)] = fn;
    used.add(name);
  }
  const unused = Object.keys(functions).filter((name) => !used.has(name));
  if (unused.length > 0) throw new Error(`Route functions without a route in ${group}: ${unused.join(', ')}`);
  return map;
}

/** Routes of the private API (`/api/...`): every one of them demands a personal API key. */
export function isPrivateRoute(route: Route): boolean {
  return route.path.startsWith('/api/');
}
