/**
 * THE operation table: every HTTP operation Flock serves, as plain data, each declared once (method,
 * path, group, operation id, key scopes).
 *
 * The CDK stateless stack creates one Lambda per `group` and one API Gateway route per row derived from
 * it (`routes`); the local server (`npm start`) matches requests against the same rows; each group's
 * handler binds its functions to its operations (`bindOperations`); the OpenAPI document describes
 * them (functions/shared/openapi/). This module imports no handler code, so the CDK app and every
 * bundle can read it.
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
  'query',
  'fallback',
] as const;
export type HttpGroup = (typeof httpGroups)[number];

/** Timeout of each HTTP group's function; API Gateway's own integration limit is 30 s. */
export const httpFunctionTimeoutSeconds = 10;

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'OPTIONS';

/**
 * One operation of the API: the only place its method and path are written. Everything else is
 * derived from these declarations: the API Gateway routes (CDK), the local server's routing, the
 * scopes a personal API key needs, the handler's dispatch (`bindOperations`) and the OpenAPI document
 * (`functions/shared/openapi/`, which adds each operation's schemas and summary by `id`).
 */
export interface Operation {
  /** PostHog's operation id (`projects_list`): the OpenAPI `operationId`, and what a handler binds. */
  readonly id: string;
  readonly group: HttpGroup;
  readonly method: HttpMethod;
  /** The path as PostHog documents it, with its trailing slash (`/api/projects/{project_id}/`). */
  readonly path: string;
  /**
   * What a personal API key must carry to call a private operation (all of them; `*` grants
   * everything): PostHog's `scope_object` of the viewset with `:read` for a read, `:write` for a
   * change, or the action's own `required_scopes`. Public operations have none.
   */
  readonly scope?: ScopeDeclaration;
  /**
   * The name of the function the group's handler binds to it, when one function serves several
   * operations (every capture path; both spellings of the current user's path). @default id
   */
  readonly fn?: string;
}

/** One row per route key: what API Gateway and the local server match a request against. */
export interface Route {
  readonly group: HttpGroup;
  /** `ANY` only for the `$default` catch-all. */
  readonly method: HttpMethod | 'ANY';
  /** API Gateway route path, or `$default`. */
  readonly path: string;
  /** The operation this row serves (none for `$default`). */
  readonly operation?: Operation;
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

/** The scopes a personal API key needs for an operation (none for a public one). */
export function operationScopes(operation: Operation): readonly RequiredScope[] | undefined {
  const declaration = operation.scope;
  if (declaration === undefined) return undefined;
  if (typeof declaration !== 'string') return declaration;
  return [`${declaration}:${operation.method === 'GET' ? 'read' : 'write'}`];
}

/** Public capture endpoints: every path PostHog's SDKs post events to (`posthog/urls.py`). */
export const capturePaths = ['/capture/', '/batch/', '/e/', '/i/v0/e/', '/track/', '/engage/'] as const;

/**
 * Paths under `/api/` served without credentials: the OpenAPI document, public as PostHog's
 * `/api/schema/` is (it describes the API, and holds no data).
 */
export const publicApiPaths = ['/api/schema/'] as const;

/** A group's operations, without repeating the group on each. */
function group(name: HttpGroup, declarations: readonly Omit<Operation, 'group'>[]): Operation[] {
  return declarations.map((declaration) => ({ group: name, ...declaration }));
}

/** Each capture path takes events by POST and GET (one function) and answers preflights. */
function captureOperations(): Operation[] {
  return capturePaths.flatMap((path) => {
    const name = path.split('/').filter(Boolean).join('_');
    return group('capture', [
      { id: `capture_${name}_create`, method: 'POST', path, fn: 'capture' },
      { id: `capture_${name}_retrieve`, method: 'GET', path, fn: 'capture' },
      { id: `capture_${name}_options`, method: 'OPTIONS', path, fn: 'preflight' },
    ]);
  });
}

/** `/users/@me/` is served under `/api/` and, as PostHog also does, without it. */
function userOperations(prefix: '/api' | '', suffix: '' | '_unprefixed'): Operation[] {
  const path = `${prefix}/users/{user_uuid}/`;
  return group('users', [
    { id: `users_retrieve${suffix}`, method: 'GET', path, scope: 'user', fn: 'users_retrieve' },
    {
      id: `users_partial_update${suffix}`,
      method: 'PATCH',
      path,
      scope: 'user',
      fn: 'users_partial_update',
    },
  ]);
}

const project = '/api/projects/{project_id}';

/** Every operation Flock serves. */
export const operations: readonly Operation[] = [
  ...captureOperations(),
  // PostHog's EventViewSet has the `query` scope object: reading events is a query.
  // `values` is a literal segment, so API Gateway prefers it to the `{event_id}` variable.
  ...group('events', [
    { id: 'events_list', method: 'GET', path: `${project}/events/`, scope: 'query' },
    { id: 'events_values', method: 'GET', path: `${project}/events/values/`, scope: 'query' },
    { id: 'events_retrieve', method: 'GET', path: `${project}/events/{event_id}/`, scope: 'query' },
  ]),
  // One variable name per path position (`{project_id}`, also for a project's own routes, written
  // `:id` in the docs): sibling variables of different names are a known API Gateway pitfall, and
  // one name lets every route resolve its project the same way.
  ...group('projects', [
    { id: 'projects_list', method: 'GET', path: '/api/projects/', scope: 'project' },
    { id: 'projects_create', method: 'POST', path: '/api/projects/', scope: 'project' },
    { id: 'projects_retrieve', method: 'GET', path: `${project}/`, scope: 'project' },
    { id: 'projects_partial_update', method: 'PATCH', path: `${project}/`, scope: 'project' },
    { id: 'projects_destroy', method: 'DELETE', path: `${project}/`, scope: 'project' },
  ]),
  // `@me` is a value of the `{user_uuid}` variable (PostHog's lookup field), not a literal segment.
  ...userOperations('/api', ''),
  // The caller's organizations (`@current` or a uuid), served with the user: the same reads.
  ...group('users', [
    { id: 'organizations_list', method: 'GET', path: '/api/organizations/', scope: 'organization' },
    {
      id: 'organizations_retrieve',
      method: 'GET',
      path: '/api/organizations/{organization_id}/',
      scope: 'organization',
    },
    {
      id: 'organizations_projects_list',
      method: 'GET',
      path: '/api/organizations/{organization_id}/projects/',
      scope: 'project',
    },
  ]),
  ...userOperations('', '_unprefixed'),
  // A key creates keys no broader than its own scopes (functions/personal_api_keys/create.ts).
  ...group('personal_api_keys', [
    {
      id: 'personal_api_keys_list',
      method: 'GET',
      path: '/api/personal_api_keys/',
      scope: 'personal_api_key',
    },
    {
      id: 'personal_api_keys_create',
      method: 'POST',
      path: '/api/personal_api_keys/',
      scope: 'personal_api_key',
    },
    {
      id: 'personal_api_keys_retrieve',
      method: 'GET',
      path: '/api/personal_api_keys/{id}/',
      scope: 'personal_api_key',
    },
    {
      id: 'personal_api_keys_destroy',
      method: 'DELETE',
      path: '/api/personal_api_keys/{id}/',
      scope: 'personal_api_key',
    },
  ]),
  ...group('event_definitions', [
    {
      id: 'event_definitions_list',
      method: 'GET',
      path: `${project}/event_definitions/`,
      scope: 'event_definition',
    },
    {
      id: 'event_definitions_retrieve',
      method: 'GET',
      path: `${project}/event_definitions/{id}/`,
      scope: 'event_definition',
    },
    {
      id: 'event_definitions_partial_update',
      method: 'PATCH',
      path: `${project}/event_definitions/{id}/`,
      scope: 'event_definition',
    },
    {
      id: 'property_definitions_list',
      method: 'GET',
      path: `${project}/property_definitions/`,
      scope: 'property_definition',
    },
    {
      id: 'property_definitions_retrieve',
      method: 'GET',
      path: `${project}/property_definitions/{id}/`,
      scope: 'property_definition',
    },
  ]),
  ...group('schema', [{ id: 'schema_retrieve', method: 'GET', path: publicApiPaths[0] }]),
  // Public flag endpoints (`posthog/api/decide.py`, posthog-node and posthog-js): decide and flags evaluation, local
  // evaluation definitions (personal API key; both paths the SDKs call), posthog-js remote config.
  // `{token}` is a project token.
  ...group('flags', [
    { id: 'decide_create', method: 'POST', path: '/decide/' },
    { id: 'decide_retrieve', method: 'GET', path: '/decide/', fn: 'config_only' },
    { id: 'decide_options', method: 'OPTIONS', path: '/decide/', fn: 'preflight' },
    { id: 'flags_create', method: 'POST', path: '/flags/' },
    { id: 'flags_retrieve', method: 'GET', path: '/flags/', fn: 'config_only' },
    { id: 'flags_options', method: 'OPTIONS', path: '/flags/', fn: 'preflight' },
    {
      id: 'flags_definitions_retrieve',
      method: 'GET',
      path: '/flags/definitions/',
      scope: 'feature_flag',
      fn: 'local_evaluation',
    },
    {
      id: 'feature_flag_local_evaluation_retrieve',
      method: 'GET',
      path: '/api/feature_flag/local_evaluation/',
      scope: 'feature_flag',
      fn: 'local_evaluation',
    },
    { id: 'remote_config_retrieve', method: 'GET', path: '/array/{token}/config/' },
    {
      id: 'remote_config_retrieve_options',
      method: 'OPTIONS',
      path: '/array/{token}/config/',
      fn: 'preflight',
    },
    { id: 'remote_config_js_retrieve', method: 'GET', path: '/array/{token}/config.js/' },
    {
      id: 'remote_config_js_retrieve_options',
      method: 'OPTIONS',
      path: '/array/{token}/config.js/',
      fn: 'preflight',
    },
  ]),
  // Flag management; `{id}` is a flag id, or (remote_config only) a flag key, as in PostHog.
  ...group('feature_flags', [
    { id: 'feature_flags_list', method: 'GET', path: `${project}/feature_flags/`, scope: 'feature_flag' },
    { id: 'feature_flags_create', method: 'POST', path: `${project}/feature_flags/`, scope: 'feature_flag' },
    {
      id: 'feature_flags_retrieve',
      method: 'GET',
      path: `${project}/feature_flags/{id}/`,
      scope: 'feature_flag',
    },
    {
      id: 'feature_flags_partial_update',
      method: 'PATCH',
      path: `${project}/feature_flags/{id}/`,
      scope: 'feature_flag',
    },
    {
      id: 'feature_flags_destroy',
      method: 'DELETE',
      path: `${project}/feature_flags/{id}/`,
      scope: 'feature_flag',
    },
    {
      id: 'feature_flags_remote_config',
      method: 'GET',
      path: `${project}/feature_flags/{id}/remote_config/`,
      scope: 'feature_flag',
    },
  ]),
  // Persons: `{uuid}` is a person's uuid (Flock has no integer person ids).
  ...group('persons', [
    { id: 'persons_list', method: 'GET', path: `${project}/persons/`, scope: 'person' },
    { id: 'persons_retrieve', method: 'GET', path: `${project}/persons/{uuid}/`, scope: 'person' },
    // Groups (PostHog's GroupsViewSet and GroupsTypesViewSet) are served by the same function.
    { id: 'groups_list', method: 'GET', path: `${project}/groups/`, scope: 'group' },
    { id: 'groups_find_retrieve', method: 'GET', path: `${project}/groups/find/`, scope: 'group' },
    { id: 'groups_types_list', method: 'GET', path: `${project}/groups_types/`, scope: 'group' },
  ]),
  ...group('cohorts', [
    { id: 'cohorts_list', method: 'GET', path: `${project}/cohorts/`, scope: 'cohort' },
    { id: 'cohorts_create', method: 'POST', path: `${project}/cohorts/`, scope: 'cohort' },
    { id: 'cohorts_retrieve', method: 'GET', path: `${project}/cohorts/{id}/`, scope: 'cohort' },
    { id: 'cohorts_partial_update', method: 'PATCH', path: `${project}/cohorts/{id}/`, scope: 'cohort' },
    { id: 'cohorts_destroy', method: 'DELETE', path: `${project}/cohorts/{id}/`, scope: 'cohort' },
    // PostHog's `persons` action names both (`required_scopes`): it lists persons.
    {
      id: 'cohorts_persons',
      method: 'GET',
      path: `${project}/cohorts/{id}/persons/`,
      scope: ['cohort:read', 'person:read'],
    },
  ]),
  // The plugin catalogue of an organization (`@current` or its uuid), and a project's plugin configs;
  // `rearrange` is a literal segment, so it wins over the `{id}` variable.
  // PostHog's plugin, plugin config and plugin log viewsets all have the `plugin` scope object.
  ...group('plugins', [
    {
      id: 'plugins_list',
      method: 'GET',
      path: '/api/organizations/{organization_id}/plugins/',
      scope: 'plugin',
    },
  ]),
  ...group('plugin_configs', [
    { id: 'plugin_configs_list', method: 'GET', path: `${project}/plugin_configs/`, scope: 'plugin' },
    { id: 'plugin_configs_create', method: 'POST', path: `${project}/plugin_configs/`, scope: 'plugin' },
    {
      id: 'plugin_configs_rearrange_partial_update',
      method: 'PATCH',
      path: `${project}/plugin_configs/rearrange/`,
      scope: 'plugin',
    },
    {
      id: 'plugin_configs_retrieve',
      method: 'GET',
      path: `${project}/plugin_configs/{id}/`,
      scope: 'plugin',
    },
    {
      id: 'plugin_configs_partial_update',
      method: 'PATCH',
      path: `${project}/plugin_configs/{id}/`,
      scope: 'plugin',
    },
    {
      id: 'plugin_configs_destroy',
      method: 'DELETE',
      path: `${project}/plugin_configs/{id}/`,
      scope: 'plugin',
    },
    {
      id: 'plugin_configs_frontend_retrieve',
      method: 'GET',
      path: `${project}/plugin_configs/{id}/frontend/`,
      scope: 'plugin',
    },
    {
      id: 'plugin_configs_job_create',
      method: 'POST',
      path: `${project}/plugin_configs/{id}/job/`,
      scope: 'plugin',
    },
    {
      id: 'plugin_configs_logs_list',
      method: 'GET',
      path: `${project}/plugin_configs/{id}/logs/`,
      scope: 'plugin',
    },
  ]),
  // PostHog's QueryViewSet (`posthog/api/query.py`): every action needs `query:read`, the POST and
  // the DELETE included. Also under `/api/environments/`, the path PostHog's own CLI and MCP tools call.
  ...['/api/projects', '/api/environments'].flatMap((prefix) => {
    const id = prefix === '/api/projects' ? 'query' : 'environments_query';
    const scope = ['query:read'] as const;
    return group('query', [
      {
        id: `${id}_create`,
        method: 'POST',
        path: `${prefix}/{project_id}/query/`,
        scope,
        fn: 'query_create',
      },
      {
        id: `${id}_retrieve`,
        method: 'GET',
        path: `${prefix}/{project_id}/query/{query_id}/`,
        scope,
        fn: 'query_retrieve',
      },
      {
        id: `${id}_destroy`,
        method: 'DELETE',
        path: `${prefix}/{project_id}/query/{query_id}/`,
        scope,
        fn: 'query_destroy',
      },
    ]);
  }),
];

/** The `$default` route: what no other row matches goes to the fallback group (404 or 405). */
const defaultRoute: Route = { group: 'fallback', method: 'ANY', path: '$default' };

/** The rows of a list of operations: both spellings of each path, and `$default` last. */
export function routesOf(list: readonly Operation[]): readonly Route[] {
  return [
    ...list.flatMap((operation) => {
      const scopes = operationScopes(operation);
      return bothSlashes(operation.path).map((path) => ({
        group: operation.group,
        method: operation.method,
        path,
        operation,
        ...(scopes === undefined ? {} : { scopes }),
      }));
    }),
    defaultRoute,
  ];
}

/** Every API Gateway route of the API. */
export const routes: readonly Route[] = routesOf(operations);

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
 * A group's route functions keyed by route key, from functions bound to its operations by `fn` (the
 * operation id unless declared). Fails at cold start if an operation of the group has no function or
 * a function no operation.
 */
export function bindOperations<F>(
  name: HttpGroup,
  functions: Readonly<Record<string, F>>,
  table: readonly Route[] = routes,
): Record<string, F> {
  const map: Record<string, F> = {};
  const used = new Set<string>();
  for (const route of table) {
    if (route.group !== name || !route.operation) continue;
    const fn = route.operation.fn ?? route.operation.id;
    if (!Object.hasOwn(functions, fn)) throw new Error(`No route function for ${fn} (group ${name})`);
    map[routeKey(route)] = functions[fn]!;
    used.add(fn);
  }
  const unused = Object.keys(functions).filter((fn) => !used.has(fn));
  if (unused.length > 0)
    throw new Error(`Route functions without an operation in ${name}: ${unused.join(', ')}`);
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
