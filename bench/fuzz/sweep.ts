import type { Route } from '../../functions/routes';
import { canonicalPath, isPrivateRoute, routes, trailingSlash } from '../../functions/routes';
import type { AuthVariant } from './auth';
import { authVariants, joinQuery, unknownProjectKey, validAuth } from './auth';
import type { Prng } from './prng';
import { s3ExportPluginId, s3ExportSettings } from './fixtures';
import type { Fixtures, FuzzRequest } from './types';

/**
 * The route sweep: every row of the route table, under every method it serves and some it does not,
 * with each path variable set to real values and to hostile ones, and with every way of presenting
 * (or not) a personal API key.
 */

interface Segment {
  readonly name: string;
  /** Already percent-encoded (or deliberately malformed). */
  readonly text: string;
}

/** Path segments no variable should choke on. */
export const hostileSegments: readonly Segment[] = [
  { name: 'zero', text: '0' },
  { name: 'negative', text: '-1' },
  { name: 'huge', text: '99999999999999999999999999' },
  { name: '2^53+1', text: '9007199254740993' },
  { name: 'exponent', text: '1e309' },
  { name: 'float', text: '1.5' },
  { name: 'hex', text: '0x1F' },
  { name: 'signed', text: '+7' },
  { name: 'alpha', text: 'abc' },
  { name: 'unicode', text: encodeURIComponent('ñ😀\u202e') },
  { name: 'encoded traversal', text: encodeURIComponent('../../etc/passwd') },
  { name: 'encoded slash', text: 'a%2Fb' },
  { name: 'NUL', text: '%00' },
  { name: 'space', text: '%20' },
  { name: 'quote', text: encodeURIComponent(`1' OR '1'='1`) },
  { name: 'bad escape', text: '%E0%A4%A' },
  { name: 'lone percent', text: '%' },
  { name: 'lone surrogate', text: '%ED%A0%80' },
  { name: 'invalid UTF-8', text: '%FF%FE' },
  { name: 'zero uuid', text: '00000000-0000-0000-0000-000000000000' },
  { name: '3 KB', text: 'a'.repeat(3000) },
  { name: '8 KB', text: 'b'.repeat(8000) },
  { name: 'empty', text: '' },
];

const variablePattern = /\{([^{}+]+)\}/g;

function variablesOf(template: string): string[] {
  return [...template.matchAll(variablePattern)].map((match) => match[1]!);
}

/** Real values of a variable, for this route and method. */
function validValues(name: string, canonical: string, method: string, f: Fixtures): Segment[] {
  const values = (...texts: string[]): Segment[] => texts.map((text) => ({ name: `real ${name}`, text }));
  switch (name) {
    case 'project_id':
      // Never DELETE the project every other request uses (nor `@current`, which is it).
      if (method === 'DELETE' && canonical === '/api/projects/{project_id}/')
        return values(String(f.spareProjectId), String(f.deletedProjectId));
      return [
        ...values(String(f.projectId), String(f.deletedProjectId)),
        { name: '@current', text: '@current' },
      ];
    case 'id':
      if (canonical.startsWith('/api/personal_api_keys/')) return values(f.spareKeyId);
      if (canonical.startsWith('/api/projects/{project_id}/event_definitions/'))
        return values(f.eventDefinitionId);
      if (canonical.startsWith('/api/projects/{project_id}/cohorts/')) return values(String(f.cohortId));
      if (canonical.startsWith('/api/projects/{project_id}/plugin_configs/'))
        return values(String(f.pluginConfigId));
      if (method === 'DELETE') return values(String(f.spareFlagId));
      return values(String(f.flagId), f.flagKey);
    case 'uuid':
      return values(f.personUuid, f.personUuid.toUpperCase());
    case 'event_id':
      return values(f.eventUuid, f.eventUuid.toUpperCase());
    case 'organization_id':
      return [{ name: '@current', text: '@current' }, ...values(f.organizationId)];
    case 'user_uuid':
      return [{ name: '@me', text: '@me' }, ...values(f.userUuid)];
    case 'token':
      return [
        ...values(f.projectApiKey, f.deletedProjectApiKey),
        { name: 'unknown token', text: unknownProjectKey },
      ];
    case 'query_id':
      // Cancelling the run is as real a use as reading it; an unknown id must answer 404.
      return [...values(f.queryId), { name: 'unknown query id', text: '0123456789abcdef0123456789abcdef' }];
    default:
      throw new Error(`No real values for {${name}}`);
  }
}

function fill(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(variablePattern, (_, name: string) => values[name] ?? '');
}

/** A body a route accepts, so that what varies is the path, the method or the key. */
export function validBody(method: string, canonical: string, f: Fixtures, n: number): string | undefined {
  if (canonical === '/decide/' || canonical === '/flags/')
    return method === 'POST'
      ? JSON.stringify({ api_key: f.projectApiKey, distinct_id: `fuzz-${n}` })
      : undefined;
  if (!['POST', 'PATCH', 'PUT'].includes(method)) return undefined;
  if (canonical.startsWith('/api/projects/{project_id}/feature_flags/'))
    return JSON.stringify({
      key: `sweep-${n}`,
      name: 'swept',
      filters: { groups: [{ rollout_percentage: 50 }] },
    });
  if (canonical.startsWith('/api/projects/{project_id}/event_definitions/'))
    return JSON.stringify({ description: `swept ${n}` });
  if (canonical.startsWith('/api/projects/{project_id}/cohorts/'))
    return JSON.stringify({
      name: `swept ${n}`,
      filters: {
        properties: {
          type: 'OR',
          values: [
            { type: 'AND', values: [{ key: 'email', type: 'person', value: 'x', operator: 'icontains' }] },
          ],
        },
      },
    });
  if (canonical === '/api/projects/{project_id}/plugin_configs/rearrange/')
    return JSON.stringify({ orders: { [String(f.pluginConfigId)]: n % 100 } });
  if (canonical === '/api/projects/{project_id}/plugin_configs/{id}/job/')
    return JSON.stringify({
      job: { type: 'Export historical events', payload: { dateFrom: '2024-01-01', dateTo: '2024-01-02' } },
    });
  if (canonical.startsWith('/api/projects/{project_id}/plugin_configs/'))
    return JSON.stringify({
      plugin: s3ExportPluginId,
      enabled: false,
      order: n % 100,
      config: s3ExportSettings,
    });
  if (canonical.startsWith('/api/projects/')) return JSON.stringify({ name: `swept ${n}` });
  if (canonical.startsWith('/api/personal_api_keys/')) return JSON.stringify({ label: `swept ${n}` });
  if (canonical.includes('/users/')) return JSON.stringify({ first_name: `Swept ${n}` });
  if (canonical.startsWith('/api/') || canonical.startsWith('/array/')) return '{}';
  // Capture paths.
  return JSON.stringify({
    api_key: f.projectApiKey,
    event: 'swept',
    properties: { distinct_id: `fuzz-${n}` },
  });
}

/** The query a public GET needs to do something (capture's `data`, definitions' `token`). */
function validQuery(method: string, canonical: string, f: Fixtures): string | undefined {
  if (canonical === '/flags/definitions/' || canonical === '/api/feature_flag/local_evaluation/')
    return `token=${f.projectApiKey}`;
  if (
    method === 'GET' &&
    !canonical.startsWith('/api/') &&
    !canonical.includes('flags') &&
    !canonical.includes('decide') &&
    !canonical.startsWith('/array/')
  ) {
    const data = Buffer.from(
      JSON.stringify({ event: 'swept', properties: { distinct_id: 'g', token: f.projectApiKey } }),
    ).toString('base64');
    return `data=${encodeURIComponent(data)}`;
  }
  return undefined;
}

const needsPersonalKey = (canonical: string): boolean =>
  canonical === '/flags/definitions/' ||
  isPrivateRoute({ group: 'fallback', method: 'GET', path: canonical.replace(/\/$/, '') });

const unsupportedMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'PROPFIND', 'FOO'];

export function routeSweep(f: Fixtures, prng: Prng): FuzzRequest[] {
  const requests: FuzzRequest[] = [];
  let n = 0;
  const add = (
    method: string,
    route: Route,
    path: string,
    label: string,
    auth: AuthVariant | undefined,
  ): void => {
    const canonical = canonicalPath(route);
    const body = validBody(method, canonical, f, n++);
    requests.push({
      method,
      path,
      query: joinQuery(validQuery(method, canonical, f), auth?.query),
      headers: {
        ...(auth?.headers ?? {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body,
      label: `${route.method} ${route.path}: ${label}${auth ? ` (${auth.name})` : ''}`,
    });
  };

  const rows = routes.filter((route) => route.path !== '$default');
  for (const route of rows) {
    const canonical = canonicalPath(route);
    const slashed = route.path.endsWith(trailingSlash);
    const template = slashed ? canonical : canonical.replace(/\/$/, '');
    const variables = variablesOf(template);
    const auth = needsPersonalKey(canonical) ? validAuth(f) : undefined;
    const realOf = (name: string) => validValues(name, canonical, route.method, f);
    const firstReal = Object.fromEntries(variables.map((name) => [name, realOf(name)[0]!.text]));

    // Real values of each variable in turn, then hostile ones (all under the slashed spelling).
    for (const name of variables) {
      for (const value of realOf(name))
        add(route.method, route, fill(template, { ...firstReal, [name]: value.text }), value.name, auth);
      const hostile = slashed ? hostileSegments : prng.sample(hostileSegments, 5);
      for (const value of hostile)
        add(
          route.method,
          route,
          fill(template, { ...firstReal, [name]: value.text }),
          `{${name}} ${value.name}`,
          auth,
        );
    }
    if (variables.length === 0) add(route.method, route, template, 'as is', auth);

    // Every way of presenting a personal key, with real values.
    if (auth)
      for (const variant of authVariants(f).slice(1))
        add(route.method, route, fill(template, firstReal), 'auth', variant);

    // What the trailing-slash variable would also catch.
    if (slashed)
      for (const extra of ['extra', 'a/b/c', '%2e%2e%2f', encodeURIComponent('ñ')])
        add(route.method, route, `${fill(template, firstReal)}${extra}`, `extra segment ${extra}`, auth);
  }

  // Methods a path is not served under (405), once per path and spelling.
  const seen = new Set<string>();
  for (const route of rows) {
    const canonical = canonicalPath(route);
    const slashed = route.path.endsWith(trailingSlash);
    if (seen.has(route.path)) continue;
    seen.add(route.path);
    const served = new Set(rows.filter((row) => row.path === route.path).map((row) => row.method));
    const template = slashed ? canonical : canonical.replace(/\/$/, '');
    const values = Object.fromEntries(
      variablesOf(template).map((name) => [name, validValues(name, canonical, 'GET', f)[0]!.text]),
    );
    for (const method of unsupportedMethods.filter((m) => !served.has(m as Route['method'])))
      add(method, route, fill(template, values), `unsupported method ${method}`, validAuth(f));
  }

  // Paths no route serves.
  for (const path of [
    '/',
    '/api',
    '/api/',
    '/api/projects/1/nothing/',
    '/s/',
    '/decide/x/y',
    '/%',
    '/%00',
    `/${'x'.repeat(8000)}`,
    '/api/projects//events/',
    '//capture/',
    '/capture//',
  ])
    requests.push({
      method: 'GET',
      path,
      headers: validAuth(f).headers,
      label: `unrouted path ${path.slice(0, 40)}`,
    });
  return requests;
}
