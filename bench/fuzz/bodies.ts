import { gzipSync } from 'node:zlib';
import { validAuth } from './auth';
import type { HostileValue } from './hostile';
import { contentTypes, hostileValues, jsonWith, malformedBodies, shortHostileValues } from './hostile';
import type { Fixtures, FuzzRequest } from './types';

/**
 * Bodies of the private API's writes: every field of a valid body replaced by each hostile value,
 * whole bodies that are not JSON (or not objects), and bodies under the wrong content type or
 * encoding.
 */

type FieldPath = readonly (string | number)[];

interface WriteEndpoint {
  readonly method: string;
  readonly path: string;
  /** A body the endpoint accepts; `n` makes unique what must be (a flag key). */
  readonly base: (n: number) => Record<string, unknown>;
  /** Fields that meet every hostile value. */
  readonly fields: readonly FieldPath[];
  /** Fields that meet the shorter list. */
  readonly minorFields?: readonly FieldPath[];
  /** Values a field must not take (they would disable what the rest of the corpus relies on). */
  readonly skip?: (path: FieldPath, value: HostileValue) => boolean;
}

const flagFilterFields: FieldPath[] = [
  ['filters', 'groups'],
  ['filters', 'groups', 0],
  ['filters', 'groups', 0, 'properties'],
  ['filters', 'groups', 0, 'properties', 0],
  ['filters', 'groups', 0, 'properties', 0, 'key'],
  ['filters', 'groups', 0, 'properties', 0, 'value'],
  ['filters', 'groups', 0, 'properties', 0, 'operator'],
  ['filters', 'groups', 0, 'properties', 0, 'type'],
  ['filters', 'groups', 0, 'properties', 0, 'group_type_index'],
  ['filters', 'groups', 0, 'rollout_percentage'],
  ['filters', 'groups', 0, 'variant'],
  ['filters', 'multivariate'],
  ['filters', 'multivariate', 'variants'],
  ['filters', 'multivariate', 'variants', 0],
  ['filters', 'multivariate', 'variants', 0, 'key'],
  ['filters', 'multivariate', 'variants', 0, 'rollout_percentage'],
  ['filters', 'payloads'],
  ['filters', 'payloads', 'control'],
  ['filters', 'aggregation_group_type_index'],
  ['filters', 'super_groups'],
  ['filters', 'holdout_groups'],
];

const flagBase = (n: number): Record<string, unknown> => ({
  key: `fuzz-flag-${n}`,
  name: 'fuzzed',
  filters: {
    groups: [
      {
        properties: [{ key: 'email', value: 'a@b.c', operator: 'exact', type: 'person' }],
        rollout_percentage: 50,
        variant: 'control',
      },
    ],
    multivariate: {
      variants: [
        { key: 'control', rollout_percentage: 50 },
        { key: 'test', rollout_percentage: 50 },
      ],
    },
    payloads: { control: '{"a":1}' },
  },
  active: true,
});

function endpoints(f: Fixtures): WriteEndpoint[] {
  const project = `/api/projects/${f.projectId}`;
  const projectFields: FieldPath[] = [
    ['app_urls'],
    ['name'],
    ['slack_incoming_webhook'],
    ['anonymize_ips'],
    ['completed_snippet_onboarding'],
    ['test_account_filters'],
    ['test_account_filters_default_checked'],
    ['path_cleaning_filters'],
    ['timezone'],
    ['data_attributes'],
    ['person_display_name_properties'],
    ['correlation_config'],
    ['session_recording_opt_in'],
    ['capture_console_log_opt_in'],
    ['access_control'],
    ['primary_dashboard'],
    ['live_events_columns'],
    ['recording_domains'],
  ];
  return [
    {
      method: 'POST',
      path: '/api/projects/',
      base: (n) => ({ name: `fuzz ${n}` }),
      fields: [['name'], ['timezone'], ['app_urls'], ['test_account_filters'], ['primary_dashboard']],
      minorFields: [['app_urls', 0], ['person_display_name_properties', 0], ['id'], ['api_token']],
    },
    {
      method: 'PATCH',
      path: `${project}/`,
      base: () => ({ name: 'Default project' }),
      fields: [['data_attributes'], ['recording_domains']],
      minorFields: projectFields,
    },
    {
      method: 'PATCH',
      path: '/api/users/@me/',
      base: () => ({ first_name: 'Fuzz' }),
      fields: [['first_name'], ['set_current_team']],
      minorFields: [['email'], ['uuid']],
      // Moving the current project away would turn later `@current` requests into 404s only.
      skip: (path, value) => path[0] === 'set_current_team' && value.name === 'true',
    },
    {
      method: 'POST',
      path: '/api/personal_api_keys/',
      base: (n) => ({ label: `fuzz ${n}` }),
      fields: [['label']],
      minorFields: [['scopes'], ['scoped_teams'], ['value']],
    },
    {
      method: 'PATCH',
      path: `${project}/event_definitions/${f.eventDefinitionId}/`,
      base: () => ({ description: 'fuzzed' }),
      fields: [['description'], ['tags'], ['owner']],
      minorFields: [['tags', 0], ['verified'], ['post_to_slack'], ['name'], ['id']],
    },
    {
      method: 'POST',
      path: `${project}/feature_flags/`,
      base: flagBase,
      fields: [['key'], ['name'], ['filters'], ['active'], ['ensure_experience_continuity'], ['deleted']],
      minorFields: [['is_remote_configuration'], ['rollout_percentage'], ...flagFilterFields],
    },
    {
      method: 'PATCH',
      path: `${project}/feature_flags/${f.flagId}/`,
      base: () => ({ name: 'patched' }),
      fields: [['filters'], ['key'], ['name']],
      minorFields: [['active'], ['deleted'], ['version'], ...flagFilterFields],
      // Deleting or turning off the flag would leave later requests nothing to evaluate.
      skip: (path, value) =>
        (path[0] === 'deleted' && value.name === 'true') || (path[0] === 'active' && value.name === 'false'),
    },
  ];
}

/** Filters that are structurally fine and semantically wrong, PostHog's validation cases and worse. */
function semanticFilters(): { name: string; filters: unknown }[] {
  const condition = (extra: Record<string, unknown>) => ({ groups: [{ properties: [], ...extra }] });
  const property = (extra: Record<string, unknown>) => ({
    groups: [
      { properties: [{ key: 'email', value: 'x', type: 'person', ...extra }], rollout_percentage: 100 },
    ],
  });
  const variants = (...list: unknown[]) => ({
    groups: [{ rollout_percentage: 100 }],
    multivariate: { variants: list },
  });
  return [
    { name: 'rollout 101', filters: condition({ rollout_percentage: 101 }) },
    { name: 'rollout -1', filters: condition({ rollout_percentage: -1 }) },
    { name: 'rollout 1e-300', filters: condition({ rollout_percentage: 1e-300 }) },
    { name: 'rollout "50"', filters: condition({ rollout_percentage: '50' }) },
    { name: 'no groups', filters: { groups: [] } },
    {
      name: '10k groups',
      filters: { groups: Array.from({ length: 10_000 }, () => ({ rollout_percentage: 1 })) },
    },
    { name: 'unknown operator', filters: property({ operator: 'is_maybe' }) },
    { name: 'invalid regex', filters: property({ operator: 'regex', value: '(unclosed[' }) },
    { name: 'catastrophic regex', filters: property({ operator: 'regex', value: '(a+)+$' }) },
    { name: 'lookbehind regex', filters: property({ operator: 'regex', value: '(?<=a)b' }) },
    { name: 'regex of a number', filters: property({ operator: 'regex', value: 42 }) },
    { name: 'date garbage', filters: property({ operator: 'is_date_before', value: 'yesterday-ish' }) },
    { name: 'relative date huge', filters: property({ operator: 'is_date_after', value: '-99999999999y' }) },
    { name: 'semver garbage', filters: property({ operator: 'semver_gt', value: '1.x.y.z.w' }) },
    { name: 'gt of an object', filters: property({ operator: 'gt', value: { a: 1 } }) },
    { name: 'exact of 1001 values', filters: property({ value: Array.from({ length: 1001 }, (_, i) => i) }) },
    { name: 'cohort property', filters: property({ type: 'cohort', value: 1, key: 'id' }) },
    { name: 'group property without aggregation', filters: property({ type: 'group', group_type_index: 0 }) },
    {
      name: 'aggregation with person property',
      filters: { ...property({}), aggregation_group_type_index: 0 },
    },
    {
      name: 'aggregation 5',
      filters: { ...condition({ rollout_percentage: 1 }), aggregation_group_type_index: 5 },
    },
    {
      name: 'aggregation -1',
      filters: { ...condition({ rollout_percentage: 1 }), aggregation_group_type_index: -1 },
    },
    {
      name: 'variants sum 99',
      filters: variants({ key: 'a', rollout_percentage: 49 }, { key: 'b', rollout_percentage: 50 }),
    },
    {
      name: 'variants sum 0.1+0.2',
      filters: variants({ key: 'a', rollout_percentage: 0.1 }, { key: 'b', rollout_percentage: 99.9 }),
    },
    {
      name: 'duplicate variant keys',
      filters: variants({ key: 'a', rollout_percentage: 50 }, { key: 'a', rollout_percentage: 50 }),
    },
    { name: 'variant without key', filters: variants({ rollout_percentage: 100 }) },
    { name: 'empty variants', filters: variants() },
    { name: 'variant override unknown', filters: condition({ variant: 'nope', rollout_percentage: 1 }) },
    {
      name: 'payload not JSON',
      filters: { ...condition({ rollout_percentage: 1 }), payloads: { true: '{nope' } },
    },
    {
      name: 'payload wrong key',
      filters: { ...condition({ rollout_percentage: 1 }), payloads: { false: '1' } },
    },
    {
      name: 'payload 300 KB',
      filters: {
        ...condition({ rollout_percentage: 1 }),
        payloads: { true: JSON.stringify('p'.repeat(300_000)) },
      },
    },
    { name: 'payloads array', filters: { ...condition({ rollout_percentage: 1 }), payloads: ['a'] } },
    {
      name: 'properties of strings',
      filters: { groups: [{ properties: ['email'], rollout_percentage: 1 }] },
    },
    { name: 'property key number', filters: property({ key: 12 }) },
    { name: 'property key 3 KB', filters: property({ key: 'k'.repeat(3000) }) },
    {
      name: 'super group with bad property',
      filters: {
        ...condition({ rollout_percentage: 1 }),
        super_groups: [
          {
            properties: [{ key: '$feature_enrollment/x', value: ['true'], operator: 'exact' }],
            rollout_percentage: 'x',
          },
        ],
      },
    },
    {
      name: 'holdout groups',
      filters: {
        ...condition({ rollout_percentage: 1 }),
        holdout_groups: [{ properties: [], rollout_percentage: 10, variant: 'holdout-1' }],
      },
    },
    {
      name: 'nested property groups',
      filters: {
        groups: [
          { properties: { type: 'AND', values: [{ type: 'OR', values: [] }] }, rollout_percentage: 1 },
        ],
      },
    },
  ];
}

const jsonHeaders = (f: Fixtures): Record<string, string> => ({
  ...validAuth(f).headers,
  'content-type': 'application/json',
});

export function bodyFuzz(f: Fixtures): FuzzRequest[] {
  const requests: FuzzRequest[] = [];
  let n = 0;
  for (const endpoint of endpoints(f)) {
    const describe = (what: string) => `${endpoint.method} ${endpoint.path}: ${what}`;
    const fieldCases: [FieldPath, readonly HostileValue[]][] = [
      ...endpoint.fields.map((path): [FieldPath, readonly HostileValue[]] => [path, hostileValues]),
      ...(endpoint.minorFields ?? []).map((path): [FieldPath, readonly HostileValue[]] => [
        path,
        shortHostileValues,
      ]),
    ];
    for (const [path, values] of fieldCases)
      for (const value of values) {
        if (endpoint.skip?.(path, value)) continue;
        requests.push({
          method: endpoint.method,
          path: endpoint.path,
          headers: jsonHeaders(f),
          body: jsonWith(endpoint.base(n++), path, value.json),
          label: describe(`${path.join('.')} = ${value.name}`),
        });
      }
    for (const malformed of malformedBodies)
      requests.push({
        method: endpoint.method,
        path: endpoint.path,
        headers: jsonHeaders(f),
        body: malformed.body,
        label: describe(`body ${malformed.name}`),
      });
    for (const contentType of contentTypes)
      requests.push({
        method: endpoint.method,
        path: endpoint.path,
        headers: {
          ...validAuth(f).headers,
          ...(contentType === undefined ? {} : { 'content-type': contentType }),
        },
        body: JSON.stringify(endpoint.base(n++)),
        label: describe(`content type ${contentType ?? 'none'}`),
      });
    const valid = JSON.stringify(endpoint.base(n++));
    const encodings: [string, Record<string, string>, string | Uint8Array][] = [
      ['gzip of a valid body', { 'content-encoding': 'gzip' }, gzipSync(valid)],
      ['gzip garbage', { 'content-encoding': 'gzip' }, Uint8Array.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5])],
      ['truncated gzip', { 'content-encoding': 'gzip' }, gzipSync(valid).subarray(0, 12)],
      ['unknown encoding', { 'content-encoding': 'br, zstd' }, valid],
      ['base64 body', { 'content-encoding': 'base64' }, Buffer.from(valid).toString('base64')],
      [
        'form body',
        { 'content-type': 'application/x-www-form-urlencoded' },
        `data=${encodeURIComponent(valid)}`,
      ],
      [
        'key in body',
        { authorization: '' },
        JSON.stringify({ ...endpoint.base(n++), personal_api_key: f.personalApiKey }),
      ],
      [
        'key in body of wrong type',
        { authorization: '' },
        JSON.stringify({ ...endpoint.base(n++), personal_api_key: 12 }),
      ],
    ];
    for (const [name, headers, body] of encodings) {
      const merged: Record<string, string> = { ...jsonHeaders(f), ...headers };
      if (merged.authorization === '') delete merged.authorization;
      requests.push({
        method: endpoint.method,
        path: endpoint.path,
        headers: merged,
        body,
        label: describe(name),
      });
    }
  }

  for (const method of ['POST', 'PATCH'])
    for (const { name, filters } of semanticFilters()) {
      const path =
        method === 'POST'
          ? `/api/projects/${f.projectId}/feature_flags/`
          : `/api/projects/${f.projectId}/feature_flags/${f.flagId}/`;
      const body = method === 'POST' ? { key: `semantic-${n++}`, filters } : { filters };
      requests.push({
        method,
        path,
        headers: jsonHeaders(f),
        body: JSON.stringify(body),
        label: `${method} ${path}: filters ${name}`,
      });
    }
  return requests;
}
