import { compressToBase64 } from 'lz-string';
import { gzipSync } from 'node:zlib';
import { authVariants, joinQuery, unknownPersonalKey, unknownProjectKey, validAuth } from './auth';
import { hostileValues, jsonWith, malformedBodies, shortHostileValues } from './hostile';
import type { Prng } from './prng';
import type { Fixtures, FuzzRequest } from './types';

/**
 * Flag evaluation (`/decide/` v1–v4, `/flags/` v1–v2) with odd distinct ids, groups and properties
 * (evaluated against flags that use every operator), their encodings and tokens, and the
 * definitions endpoints of the server SDKs.
 */

type FieldPath = readonly (string | number)[];

const fields: FieldPath[] = [
  ['distinct_id'],
  ['groups'],
  ['person_properties'],
  ['person_properties', 'email'],
  ['person_properties', 'age'],
  ['person_properties', 'joined'],
  ['person_properties', 'version'],
  ['group_properties'],
  ['group_properties', 'company'],
  ['group_properties', 'company', 'size'],
  ['groups', 'company'],
  ['api_key'],
];

const minorFields: FieldPath[] = [
  ['$anon_distinct_id'],
  ['$device_id'],
  ['token'],
  ['project_id'],
  ['disable_flags'],
  ['flag_keys_to_evaluate'],
  ['flag_keys_to_evaluate', 0],
  ['flag_keys'],
  ['only_evaluate_survey_feature_flags'],
  ['evaluation_environments'],
  ['timezone'],
  ['geoip_disable'],
];

/** Query strings of the versions, valid and not. */
const versions = [
  '',
  'v=1',
  'v=2',
  'v=3',
  'v=4',
  'v=5',
  'v=-1',
  'v=999999999999',
  'v=abc',
  'v=2&v=1.19.0',
  'v=1e3',
  'v=',
  'v=%00',
];

export function flagsFuzz(f: Fixtures, prng: Prng): FuzzRequest[] {
  const requests: FuzzRequest[] = [];
  let n = 0;
  const base = (): Record<string, unknown> => ({
    api_key: f.projectApiKey,
    distinct_id: `flag-user-${n++ % 50}`,
    person_properties: { email: 'someone@example.com', age: 30, joined: '2024-01-01', version: '1.2.3' },
    groups: { company: 'acme' },
    group_properties: { company: { size: 10 } },
  });
  const where = (): { path: string; query: string } => {
    const path = prng.pick(['/decide/', '/flags/', '/decide', '/flags']);
    const query = path.startsWith('/flags')
      ? prng.pick(['', 'v=1', 'v=2'])
      : prng.pick(['v=2', 'v=3', 'v=4']);
    return { path, query };
  };
  const post = (
    label: string,
    body: string | Uint8Array,
    headers: Record<string, string> = {},
    at = where(),
  ): void => {
    requests.push({
      method: 'POST',
      path: at.path,
      query: at.query || undefined,
      headers: { 'content-type': 'application/json', ...headers },
      body,
      label: `POST ${at.path}?${at.query}: ${label}`,
    });
  };

  for (const field of fields)
    for (const value of hostileValues)
      post(`${field.join('.')} = ${value.name}`, jsonWith(base(), field, value.json));
  for (const field of minorFields)
    for (const value of shortHostileValues)
      post(`${field.join('.')} = ${value.name}`, jsonWith(base(), field, value.json));
  for (const path of ['/decide/', '/flags/'])
    for (const version of versions)
      post(`version ${version || 'none'}`, JSON.stringify(base()), {}, { path, query: version });
  for (const malformed of malformedBodies) post(`body ${malformed.name}`, malformed.body);

  const valid = JSON.stringify(base());
  const encodings: [string, string | Uint8Array, Record<string, string>, string?][] = [
    ['gzip', gzipSync(valid), { 'content-type': 'text/plain' }, 'compression=gzip-js'],
    ['gzip garbage', Uint8Array.from([0x1f, 0x8b, 1, 2, 3]), {}, 'compression=gzip-js'],
    ['gzip hint, plain', valid, {}, 'compression=gzip'],
    ['lz64', compressToBase64(valid), {}, 'compression=lz64'],
    ['lz64 garbage', '@@@', {}, 'compression=lz64'],
    ['base64', Buffer.from(valid).toString('base64'), { 'content-type': 'text/plain' }],
    [
      'form data=',
      `data=${encodeURIComponent(Buffer.from(valid).toString('base64'))}`,
      { 'content-type': 'application/x-www-form-urlencoded' },
    ],
    ['form garbage', 'data=%%&&==', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['Content-Encoding gzip garbage', 'nope', { 'content-encoding': 'gzip' }],
  ];
  for (const [name, body, headers, query] of encodings) {
    const at = where();
    post(name, body, headers, { path: at.path, query: joinQuery(at.query, query) ?? '' });
  }

  const tokens: [string, Record<string, unknown>][] = [
    ['no token', { api_key: undefined }],
    ['unknown token', { api_key: unknownProjectKey }],
    ['deleted project token', { api_key: f.deletedProjectApiKey }],
    ['personal key, project', { api_key: f.personalApiKey, project_id: f.projectId }],
    ['personal key, deleted project', { api_key: f.personalApiKey, project_id: f.deletedProjectId }],
    ['unknown personal key, project', { api_key: unknownPersonalKey, project_id: f.projectId }],
    ['personal key without project', { api_key: f.personalApiKey }],
    ['no distinct id, flags disabled', { distinct_id: undefined, disable_flags: true }],
    [
      'many group types',
      { groups: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`type${i}`, `key${i}`])) },
    ],
    ['1000 flag keys', { flag_keys_to_evaluate: Array.from({ length: 1000 }, (_, i) => `k${i}`) }],
  ];
  for (const [name, fieldsOf] of tokens) post(name, JSON.stringify({ ...base(), ...fieldsOf }));

  // GET decide/flags: config only, whatever the query.
  for (const query of ['', 'v=3', 'token=x', `token=${f.projectApiKey}`, 'ip=1&_=1', '%%%'])
    for (const path of ['/decide/', '/flags/'])
      requests.push({ method: 'GET', path, query: query || undefined, label: `GET ${path}?${query}` });

  // Local evaluation definitions, under every key presentation and token.
  const definitionTokens = [
    '',
    `token=${f.projectApiKey}`,
    `token=${unknownProjectKey}`,
    `token=${f.deletedProjectApiKey}`,
    'token=',
    `token=${'t'.repeat(3000)}`,
    'token=%00',
    `token=${f.projectApiKey}&token=x`,
    'send_cohorts&token=x',
  ];
  for (const path of ['/flags/definitions/', '/api/feature_flag/local_evaluation/'])
    for (const token of definitionTokens) {
      requests.push({
        method: 'GET',
        path,
        query: token || undefined,
        headers: validAuth(f).headers,
        label: `GET ${path}?${token.slice(0, 30)}`,
      });
      requests.push({
        method: 'GET',
        path,
        query: token || undefined,
        headers: { ...validAuth(f).headers, 'if-none-match': prng.pick(['*', 'W/"x"', '"', ',,,', 'W/']) },
        label: `GET ${path}?${token.slice(0, 30)} with If-None-Match`,
      });
    }
  for (const path of ['/flags/definitions/', '/api/feature_flag/local_evaluation/'])
    for (const variant of authVariants(f))
      requests.push({
        method: 'GET',
        path,
        query: joinQuery(`token=${f.projectApiKey}`, variant.query),
        headers: variant.headers,
        label: `GET ${path} (${variant.name})`,
      });

  // Remote config of a flag, with `@current` and a token.
  const remote = (project: string, id: string, query?: string) =>
    requests.push({
      method: 'GET',
      path: `/api/projects/${project}/feature_flags/${id}/remote_config/`,
      query,
      headers: validAuth(f).headers,
      label: `remote_config ${project}/${id.slice(0, 20)}?${query ?? ''}`,
    });
  for (const query of [
    undefined,
    `token=${f.projectApiKey}`,
    `token=${unknownProjectKey}`,
    `token=${'t'.repeat(3000)}`,
    'token=',
    `token=${f.deletedProjectApiKey}`,
  ])
    for (const id of [String(f.flagId), f.flagKey, 'remote-config-flag', 'k'.repeat(3000), 'ñ'])
      remote('@current', encodeURIComponent(id), query);
  return requests;
}
