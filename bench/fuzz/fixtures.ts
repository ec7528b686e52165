import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Credentials } from '../../bin/local/server';
import { eventFilterOperators } from '../../functions/shared/domain/event-filters';
import type { Fixtures } from './types';

/**
 * The real resources the corpus needs, made through the API as a client would: a deleted project,
 * spare resources for DELETE requests, flags using every operator (so that flag requests reach
 * every matcher), and a stored event with its definition.
 */

type Json = Record<string, unknown>;

async function call(credentials: Credentials, method: string, path: string, body?: unknown): Promise<Json> {
  const response = await fetch(`${credentials.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${credentials.personalApiKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`setup: ${method} ${path} answered ${response.status}: ${text}`);
  return text ? (JSON.parse(text) as Json) : {};
}

/** The events API's operators, and those only flags have. */
const operators = [
  ...eventFilterOperators,
  'is_date_before',
  'is_date_after',
  'is_date_exact',
  'starts_with',
  'ends_with',
  'semver_gt',
  'semver_tilde',
  'semver_caret',
  'semver_wildcard',
  'icontains_multi',
];

const valueOf = (operator: string, key: string): unknown => {
  if (operator.startsWith('semver')) return operator === 'semver_wildcard' ? '1.*' : '1.2.0';
  if (operator.startsWith('is_date')) return key === 'joined' ? '-30d' : '2024-01-01';
  if (operator.endsWith('regex')) return '^(a+)+$';
  if (['gt', 'gte', 'lt', 'lte'].includes(operator)) return 18;
  if (operator === 'icontains_multi') return ['example', 'acme'];
  return 'someone@example.com';
};

/** One flag per operator and property, a multivariate flag with payloads, a group flag, a remote config. */
function evaluationFlags(): Json[] {
  const flags: Json[] = [];
  for (const operator of operators)
    for (const key of ['email', 'age', 'joined', 'version'])
      flags.push({
        key: `op-${operator}-${key}`,
        filters: {
          groups: [
            {
              properties: [{ key, operator, value: valueOf(operator, key), type: 'person' }],
              rollout_percentage: 100,
            },
          ],
        },
      });
  flags.push({
    key: 'multivariate',
    ensure_experience_continuity: true,
    filters: {
      groups: [{ properties: [], rollout_percentage: 100, variant: null }],
      multivariate: {
        variants: [
          { key: 'control', rollout_percentage: 50 },
          { key: 'test', rollout_percentage: 50 },
        ],
      },
      payloads: { control: '{"a":1}', test: '[1,2]' },
    },
  });
  flags.push({
    key: 'group-flag',
    filters: {
      aggregation_group_type_index: 0,
      groups: [
        {
          properties: [{ key: 'size', value: 5, operator: 'gt', type: 'group', group_type_index: 0 }],
          rollout_percentage: 100,
        },
      ],
    },
  });
  flags.push({
    key: 'remote-config-flag',
    is_remote_configuration: true,
    filters: { groups: [{ rollout_percentage: 100 }], payloads: { true: '{"remote":true}' } },
  });
  return flags;
}

async function capture(credentials: Credentials, body: Json): Promise<void> {
  const response = await fetch(`${credentials.apiUrl}/batch/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: credentials.projectApiKey, ...body }),
  });
  if (response.status !== 200) throw new Error(`setup: capture answered ${response.status}`);
}

/** Polls until `ready` holds (the consumer has stored what was captured). */
async function until(what: string, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`setup: ${what} never became ready`);
    await sleep(250);
  }
}

/** The catalogue's S3 Export plugin and settings it accepts (nothing is exported yet). */
export const s3ExportPluginId = 10;
export const s3ExportSettings = { awsAccessKey: 'fuzz', awsSecretAccessKey: 'fuzz', s3BucketName: 'fuzz' };

export async function createFixtures(credentials: Credentials): Promise<Fixtures> {
  const { projectId } = credentials;
  const me = await call(credentials, 'GET', '/api/users/@me/');
  const deleted = await call(credentials, 'POST', '/api/projects/', { name: 'fuzz: deleted' });
  await call(credentials, 'DELETE', `/api/projects/${String(deleted.id)}/`);
  const spareProject = await call(credentials, 'POST', '/api/projects/', { name: 'fuzz: spare' });
  // Creating a project makes it current: make the bootstrapped one current again.
  await call(credentials, 'PATCH', '/api/users/@me/', { set_current_team: projectId });
  const spareKey = await call(credentials, 'POST', '/api/personal_api_keys/', { label: 'fuzz spare' });
  const flags = `/api/projects/${projectId}/feature_flags/`;
  const flag = await call(credentials, 'POST', flags, {
    key: 'fuzz-main',
    filters: { groups: [{ rollout_percentage: 50 }] },
  });
  const spareFlag = await call(credentials, 'POST', flags, {
    key: 'fuzz-spare',
    filters: { groups: [{ rollout_percentage: 50 }] },
  });

  // The group type `company` (index 0) comes from ingestion; group flags need it.
  const eventUuid = randomUUID();
  await capture(credentials, {
    batch: [
      {
        event: '$groupidentify',
        distinct_id: 'fuzz-setup',
        properties: { $group_type: 'company', $group_key: 'acme', $group_set: { size: 10 } },
      },
      {
        event: 'fuzz event',
        distinct_id: 'fuzz-setup',
        uuid: eventUuid,
        properties: { plan: 'pro', $groups: { company: 'acme' } },
      },
    ],
  });
  const events = `/api/projects/${projectId}/events/`;
  await until(
    'the setup event',
    async () =>
      (
        await fetch(`${credentials.apiUrl}${events}${eventUuid}/`, {
          headers: { authorization: `Bearer ${credentials.personalApiKey}` },
        })
      ).status === 200,
  );
  let eventDefinitionId = '';
  await until('the event definition', async () => {
    const list = await call(credentials, 'GET', `/api/projects/${projectId}/event_definitions/?search=fuzz`);
    const found = (list.results as Json[]).find((definition) => definition.name === 'fuzz event');
    eventDefinitionId = found ? String(found.id) : '';
    return found !== undefined;
  });
  for (const body of evaluationFlags()) await call(credentials, 'POST', flags, body);
  let personUuid = '';
  await until('the setup person', async () => {
    const page = await call(credentials, 'GET', `/api/projects/${projectId}/persons/?distinct_id=fuzz-setup`);
    const uuid: unknown = (page.results as Json[])[0]?.uuid;
    personUuid = typeof uuid === 'string' ? uuid : '';
    return personUuid !== '';
  });
  const cohort = await call(credentials, 'POST', `/api/projects/${projectId}/cohorts/`, {
    name: 'fuzz cohort',
    filters: {
      properties: {
        type: 'OR',
        values: [{ type: 'AND', values: [{ key: 'plan', type: 'person', value: 'pro', operator: 'exact' }] }],
      },
    },
  });

  const pluginConfig = await call(credentials, 'POST', `/api/projects/${projectId}/plugin_configs/`, {
    plugin: s3ExportPluginId,
    enabled: false,
    config: s3ExportSettings,
  });

  // An async query, so the sweep reaches `…/query/{query_id}/` with an id that exists.
  const asyncQuery = await call(credentials, 'POST', `/api/projects/${projectId}/query/`, {
    query: { kind: 'HogQLQuery', query: 'select count() from events' },
    refresh: 'force_async',
  });

  return {
    projectId,
    projectApiKey: credentials.projectApiKey,
    personalApiKey: credentials.personalApiKey,
    deletedProjectId: Number(deleted.id),
    deletedProjectApiKey: String(deleted.api_token),
    spareProjectId: Number(spareProject.id),
    userUuid: String(me.uuid),
    flagId: Number(flag.id),
    flagKey: String(flag.key),
    eventDefinitionId,
    eventUuid,
    spareKeyId: String(spareKey.id),
    spareFlagId: Number(spareFlag.id),
    personUuid,
    cohortId: Number(cohort.id),
    organizationId: String((me.organization as Json).id),
    pluginConfigId: Number(pluginConfig.id),
    queryId: String((asyncQuery.query_status as Json).id),
  };
}
