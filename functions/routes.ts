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

import type { RequiredScope, ScopeObject } from './shared/auth/scopes';

/** One Lambda function per group (see `functions/<group>/handler.ts`). */
export const httpGroups = [
  'capture',
  'events',
  'projects',
  'users',
  'personal_api_keys',
  'event_definitions',
  'schema',
  'flags',
  'feature_flags',
  'persons',
  'cohorts',
  'plugins',
  'plugin_configs',
  'fallback',
] as const;
export type HttpGroup = (typeof httpGroups)[number];

/** Timeout of each HTTP group's function; API Gateway's own integration limit is 30 s. */
export const httpFunctionTimeoutSeconds = 10;

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'OPTIONS';

export interface Route {
  readonly group: HttpGroup;
  /** `ANY` only for the `$default` catch-all. */
  readonly method: HttpMethod | 'ANY';
  /** API Gateway route path, or `$default`. */
  readonly path: string;
  /**
   * What a personal API key must carry to call a private route (all of them; `*` grants everything):
   * PostHog's `scope_object` of the viewset with `:read` for a read, `:write` for a change, or the
   * action's own `required_scopes`. Public routes have none.
   */
  readonly scopes?: readonly RequiredScope[];
}

/** The greedy variable standing for a trailing slash. */
export const trailingSlash = '/{proxy+}';

/** Both spellings of a path: `/capture` and `/capture/{proxy+}` (which serves `/capture/`). */
function bothSlashes(path: string): string[] {
  let bare = path;
  while (bare.endsWith('/')) bare = bare.slice(0, -1);
  return [bare, `${bare}${trailingSlash}`];
}

/**
 * A private route's scopes: `<object>:read` for GET (PostHog's `list`/`retrieve`), `<object>:write` for
 * anything else (`create`, `update`, `partial_update`, `destroy`), unless given in full.
 */
type ScopeDeclaration = ScopeObject | readonly RequiredScope[];

function scopesOf(declaration: ScopeDeclaration, method: HttpMethod): readonly RequiredScope[] {
  if (typeof declaration !== 'string') return declaration;
  return [`${declaration}:${method === 'GET' ? 'read' : 'write'}`];
}

function rows(
  group: HttpGroup,
  methods: readonly HttpMethod[],
  paths: readonly string[],
  scope?: ScopeDeclaration,
): Route[] {
  return paths.flatMap((path) =>
    bothSlashes(path).flatMap((p) =>
      methods.map((method) => ({
        group,
        method,
        path: p,
        ...(scope === undefined ? {} : { scopes: scopesOf(scope, method) }),
      })),
    ),
  );
}

/** Public capture endpoints: every path PostHog's SDKs post events to (`posthog/urls.py`). */
export const capturePaths = ['/capture/', '/batch/', '/e/', '/i/v0/e/', '/track/', '/engage/'] as const;

/**
 * Paths under `/api/` served without credentials: the OpenAPI document, public as PostHog's
 * `/api/schema/` is (it describes the API, and holds no data).
 */
export const publicApiPaths = ['/api/schema/'] as const;

export const routes: readonly Route[] = [
  ...rows('capture', ['POST', 'GET', 'OPTIONS'], capturePaths),
  // PostHog's EventViewSet has the `query` scope object: reading events is a query.
  ...rows('events', ['GET'], ['/api/projects/{project_id}/events/'], 'query'),
  // `values` is a literal segment, so API Gateway prefers it to the `{event_id}` variable.
  ...rows(
    'events',
    ['GET'],
    ['/api/projects/{project_id}/events/values/', '/api/projects/{project_id}/events/{event_id}/'],
    'query',
  ),
  // One variable name per path position (`{project_id}`, also for a project's own routes, written `:id` in
  // the docs): sibling variables of different names are a known API Gateway pitfall, and
  // one name lets every route resolve its project the same way.
  ...rows('projects', ['GET', 'POST'], ['/api/projects/'], 'project'),
  ...rows('projects', ['GET', 'PATCH', 'DELETE'], ['/api/projects/{project_id}/'], 'project'),
  // `@me` is a value of the `{user_uuid}` variable (PostHog's lookup field), not a literal segment.
  ...rows('users', ['GET', 'PATCH'], ['/api/users/{user_uuid}/', '/users/{user_uuid}/'], 'user'),
  // A key creates keys no broader than its own scopes (functions/personal_api_keys/create.ts).
  ...rows('personal_api_keys', ['GET', 'POST'], ['/api/personal_api_keys/'], 'personal_api_key'),
  ...rows('personal_api_keys', ['GET', 'DELETE'], ['/api/personal_api_keys/{id}/'], 'personal_api_key'),
  ...rows(
    'event_definitions',
    ['GET'],
    ['/api/projects/{project_id}/event_definitions/'],
    'event_definition',
  ),
  ...rows(
    'event_definitions',
    ['GET', 'PATCH'],
    ['/api/projects/{project_id}/event_definitions/{id}/'],
    'event_definition',
  ),
  ...rows('schema', ['GET'], publicApiPaths),
  // Public flag endpoints (`posthog/api/decide.py`, posthog-node and posthog-js): decide and flags evaluation, local
  // evaluation definitions (personal API key; both paths the SDKs call), posthog-js remote config. `{token}` is a project token.
  ...rows('flags', ['POST', 'GET', 'OPTIONS'], ['/decide/', '/flags/']),
  ...rows('flags', ['GET'], ['/flags/definitions/', '/api/feature_flag/local_evaluation/'], 'feature_flag'),
  ...rows('flags', ['GET', 'OPTIONS'], ['/array/{token}/config/', '/array/{token}/config.js/']),
  // Flag management; `{id}` is a flag id, or (remote_config only) a flag key, as in PostHog.
  ...rows('feature_flags', ['GET', 'POST'], ['/api/projects/{project_id}/feature_flags/'], 'feature_flag'),
  ...rows(
    'feature_flags',
    ['GET', 'PATCH', 'DELETE'],
    ['/api/projects/{project_id}/feature_flags/{id}/'],
    'feature_flag',
  ),
  ...rows(
    'feature_flags',
    ['GET'],
    ['/api/projects/{project_id}/feature_flags/{id}/remote_config/'],
    'feature_flag',
  ),
  // Persons: `{uuid}` is a person's uuid (Flock has no integer person ids).
  ...rows(
    'persons',
    ['GET'],
    ['/api/projects/{project_id}/persons/', '/api/projects/{project_id}/persons/{uuid}/'],
    'person',
  ),
  ...rows('cohorts', ['GET', 'POST'], ['/api/projects/{project_id}/cohorts/'], 'cohort'),
  ...rows('cohorts', ['GET', 'PATCH', 'DELETE'], ['/api/projects/{project_id}/cohorts/{id}/'], 'cohort'),
  // PostHog's `persons` action names both (`required_scopes`): it lists persons.
  ...rows(
    'cohorts',
    ['GET'],
    ['/api/projects/{project_id}/cohorts/{id}/persons/'],
    ['cohort:read', 'person:read'],
  ),
  // The plugin catalogue of an organization (`@current` or its uuid), and a project's plugin configs;
  // `rearrange` is a literal segment, so it wins over the `{id}` variable.
  // PostHog's plugin, plugin config and plugin log viewsets all have the `plugin` scope object.
  ...rows('plugins', ['GET'], ['/api/organizations/{organization_id}/plugins/'], 'plugin'),
  ...rows('plugin_configs', ['GET', 'POST'], ['/api/projects/{project_id}/plugin_configs/'], 'plugin'),
  ...rows('plugin_configs', ['PATCH'], ['/api/projects/{project_id}/plugin_configs/rearrange/'], 'plugin'),
  ...rows(
    'plugin_configs',
    ['GET', 'PATCH', 'DELETE'],
    ['/api/projects/{project_id}/plugin_configs/{id}/'],
    'plugin',
  ),
  ...rows(
    'plugin_configs',
    ['GET'],
    [
      '/api/projects/{project_id}/plugin_configs/{id}/frontend/',
      '/api/projects/{project_id}/plugin_configs/{id}/logs/',
    ],
    'plugin',
  ),
  ...rows('plugin_configs', ['POST'], ['/api/projects/{project_id}/plugin_configs/{id}/job/'], 'plugin'),
  { group: 'fallback', method: 'ANY', path: '$default' },
];

/** The API Gateway route key of a row: `GET /capture/{proxy+}`, or `$default`. */
export function routeKey(route: Route): string {
  return route.path === '$default' ? '$default' : `${route.method} ${route.path}`;
}

/** The scopes each private route requires, by route key: the routes a personal API key calls. */
export const routeScopes: ReadonlyMap<string, readonly RequiredScope[]> = new Map(
  routes.flatMap((route) => (route.scopes ? [[routeKey(route), route.scopes] as const] : [])),
);

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

/**
 * Routes of the private API (`/api/...`, and `/users/@me/`, PostHog's other spelling of the current
 * user): every one of them demands a personal API key.
 */
export function isPrivateRoute(route: Route): boolean {
  if (route.path === '$default') return false;
  const path = canonicalPath(route);
  if ((publicApiPaths as readonly string[]).includes(path)) return false;
  return path.startsWith('/api/') || path.startsWith('/users/');
}
