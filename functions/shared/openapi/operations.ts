import * as z from 'zod';
import { flagPatchSchema, flagWriteSchema } from '../../feature_flags/schema';
import { eventListQuerySchema, eventValuesQuerySchema } from '../../events/query';
import { groupsFindQuerySchema, groupsListQuerySchema } from '../../persons/groups-query';
import { personsQuerySchema } from '../../persons/query';
import { pluginLogQuerySchema } from '../../plugin_configs/log-query';
import type { HttpMethod } from '../../routes';
import { operations } from '../../routes';
import { pageQuerySchema } from '../http/pagination';
import { paginatedSchema } from '../schemas/common';
import { eventListSchema, eventSchema, eventValuesSchema } from '../schemas/event';
import {
  eventDefinitionQuerySchema,
  eventDefinitionSchema,
  eventDefinitionUpdateSchema,
} from '../schemas/event-definition';
import { featureFlagSchema } from '../schemas/feature-flag';
import { groupPageSchema, groupSchema, groupTypeSchema } from '../schemas/group';
import { personPageSchema, personSchema } from '../schemas/person';
import { cohortSchema, cohortWriteSchema } from '../schemas/cohort';
import {
  pluginConfigSchema,
  pluginConfigWriteSchema,
  pluginJobSchema,
  pluginLogPageSchema,
  pluginSchema,
  rearrangeSchema,
} from '../schemas/plugin';
import { personalApiKeyCreateSchema, personalApiKeySchema } from '../schemas/personal-api-key';
import { propertyDefinitionQuerySchema, propertyDefinitionSchema } from '../schemas/property-definition';
import {
  acceptedSchema,
  captureBodySchema,
  decideResponseSchema,
  flagsRequestSchema,
  flagsResponseSchema,
  localEvaluationSchema,
  remoteConfigSchema,
} from '../schemas/public';
import { projectBasicSchema, projectSchema, projectWriteSchema } from '../schemas/project';
import { meSchema, meUpdateSchema, organizationSchema } from '../schemas/user';
import { queryResponseSchema, queryStatusResponseSchema } from '../schemas/query';
import { queryRequestSchema } from '../../query/request';

/** One successful answer of an operation: its status, and the schema of its body when it has one. */
export interface OperationResponse {
  readonly status: number;
  readonly description: string;
  readonly schema?: z.ZodType;
}

/**
 * What the OpenAPI document says of each operation of the table (functions/routes.ts, where its
 * method, path and scopes are declared), by operation id: its summary, tag, and the zod schemas the
 * handlers validate and answer with. The document is generated from them; it fails to build if an
 * operation has no description or a description no operation. Capture and decide read their
 * bodies leniently, as PostHog does: their schemas (schemas/public.ts) describe the JSON the SDKs send.
 */
export interface OperationDoc {
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  /** The query parameters, as the handler parses them. */
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly response: OperationResponse;
  /** Other successful answers (an async query's 202). */
  readonly otherResponses?: readonly OperationResponse[];
  /** Error statuses besides the ones every private operation has (401, 403). */
  readonly errors: readonly number[];
}

const projectList = paginatedSchema(projectBasicSchema, 'PaginatedProjectBasicList');
const keyList = paginatedSchema(personalApiKeySchema, 'PaginatedPersonalApiKeyList');
const definitionList = paginatedSchema(eventDefinitionSchema, 'PaginatedEventDefinitionList');
const propertyDefinitionList = paginatedSchema(propertyDefinitionSchema, 'PaginatedPropertyDefinitionList');

const tokenNote =
  'Authenticated by the project API key in the body (`api_key` or `token`), or a personal API key with `project_id`.';

/** Shared by both spellings of the current user's path. */
const userOperations = (idSuffix: string): OperationDoc[] => [
  {
    operationId: `users_retrieve${idSuffix}`,
    summary: 'The current user (`@me`), their current project and organizations',
    tag: 'users',
    response: { status: 200, description: 'The user', schema: meSchema },
    errors: [404],
  },
  {
    operationId: `users_partial_update${idSuffix}`,
    summary: "Change the current user's name or current project",
    tag: 'users',
    body: meUpdateSchema,
    response: { status: 200, description: 'The user', schema: meSchema },
    errors: [400, 404, 415],
  },
];

export const operationDocs: readonly OperationDoc[] = [
  {
    operationId: 'organizations_list',
    summary: "The caller's organizations, each with its projects",
    tag: 'organizations',
    query: pageQuerySchema,
    response: {
      status: 200,
      description: 'A page of organizations',
      schema: paginatedSchema(organizationSchema, 'PaginatedOrganizationList'),
    },
    errors: [400],
  },
  {
    operationId: 'organizations_retrieve',
    summary: "One of the caller's organizations (`@current` allowed), with its projects; another is 404",
    tag: 'organizations',
    response: { status: 200, description: 'The organization', schema: organizationSchema },
    errors: [404],
  },
  {
    operationId: 'organizations_projects_list',
    summary: "The projects of one of the caller's organizations (`@current` allowed), reduced shape",
    tag: 'organizations',
    query: pageQuerySchema,
    response: { status: 200, description: 'A page of projects (reduced shape)', schema: projectList },
    errors: [400, 404],
  },
  {
    operationId: 'projects_list',
    summary: "The projects of the caller's current organization",
    tag: 'projects',
    query: pageQuerySchema,
    response: { status: 200, description: 'A page of projects (reduced shape)', schema: projectList },
    errors: [400],
  },
  {
    operationId: 'projects_create',
    summary: "Create a project in the caller's current organization",
    tag: 'projects',
    body: projectWriteSchema,
    response: { status: 201, description: 'The new project', schema: projectSchema },
    errors: [400, 403, 415],
  },
  {
    operationId: 'projects_retrieve',
    summary: 'A project',
    tag: 'projects',
    response: { status: 200, description: 'The project', schema: projectSchema },
    errors: [403, 404],
  },
  {
    operationId: 'projects_partial_update',
    summary: "Change some of a project's settings",
    tag: 'projects',
    body: projectWriteSchema,
    response: { status: 200, description: 'The project', schema: projectSchema },
    errors: [400, 403, 404, 415],
  },
  {
    operationId: 'projects_destroy',
    summary: 'Delete a project: its token stops working, its data becomes unreachable',
    tag: 'projects',
    response: { status: 204, description: 'Deleted' },
    errors: [403, 404],
  },
  {
    operationId: 'events_list',
    summary: "The project's events, newest first, filtered, as JSON or CSV",
    tag: 'events',
    query: eventListQuerySchema,
    response: { status: 200, description: 'A page of events', schema: eventListSchema },
    errors: [400, 403, 404],
  },
  {
    operationId: 'events_values',
    summary: 'Distinct recent values of an event property, from the latest events and a sample',
    tag: 'events',
    query: eventValuesQuerySchema,
    response: { status: 200, description: 'The values', schema: eventValuesSchema },
    errors: [400, 403, 404],
  },
  {
    operationId: 'events_retrieve',
    summary: 'One event by uuid',
    tag: 'events',
    response: { status: 200, description: 'The event', schema: eventSchema },
    errors: [400, 403, 404],
  },
  {
    operationId: 'event_definitions_list',
    summary: "The project's event definitions, by name",
    tag: 'event_definitions',
    query: pageQuerySchema.extend(eventDefinitionQuerySchema.shape),
    response: { status: 200, description: 'A page of event definitions', schema: definitionList },
    errors: [400, 403, 404],
  },
  {
    operationId: 'event_definitions_retrieve',
    summary: 'An event definition',
    tag: 'event_definitions',
    response: { status: 200, description: 'The event definition', schema: eventDefinitionSchema },
    errors: [403, 404],
  },
  {
    operationId: 'event_definitions_partial_update',
    summary: "Change an event definition's owner, description, tags, verification or Slack setting",
    tag: 'event_definitions',
    body: eventDefinitionUpdateSchema,
    response: { status: 200, description: 'The event definition', schema: eventDefinitionSchema },
    errors: [400, 403, 404, 415],
  },
  {
    operationId: 'property_definitions_list',
    summary: "The project's event or person property definitions, typed at ingestion",
    tag: 'property_definitions',
    query: pageQuerySchema.extend(propertyDefinitionQuerySchema.shape),
    response: { status: 200, description: 'A page of property definitions', schema: propertyDefinitionList },
    errors: [400, 403, 404],
  },
  {
    operationId: 'property_definitions_retrieve',
    summary: 'A property definition',
    tag: 'property_definitions',
    response: { status: 200, description: 'The property definition', schema: propertyDefinitionSchema },
    errors: [403, 404],
  },
  {
    operationId: 'personal_api_keys_list',
    summary: "The caller's personal API keys, newest first, masked",
    tag: 'personal_api_keys',
    query: pageQuerySchema,
    response: { status: 200, description: 'A page of keys', schema: keyList },
    errors: [400],
  },
  {
    operationId: 'personal_api_keys_create',
    summary: 'Create a personal API key; its value is in this response only',
    tag: 'personal_api_keys',
    body: personalApiKeyCreateSchema,
    response: { status: 201, description: 'The new key, with its value', schema: personalApiKeySchema },
    errors: [400, 415],
  },
  {
    operationId: 'personal_api_keys_retrieve',
    summary: "One of the caller's personal API keys, masked; `@current` is the calling key",
    tag: 'personal_api_keys',
    response: { status: 200, description: 'The key', schema: personalApiKeySchema },
    errors: [404],
  },
  {
    operationId: 'personal_api_keys_destroy',
    summary: 'Delete a personal API key: it stops working at once',
    tag: 'personal_api_keys',
    response: { status: 204, description: 'Deleted' },
    errors: [404],
  },
  ...userOperations(''),
  ...userOperations('_unprefixed'),
  {
    operationId: 'schema_retrieve',
    summary: 'This OpenAPI document',
    tag: 'schema',
    response: {
      status: 200,
      description: 'An OpenAPI 3.1 document',
      schema: z.record(z.string(), z.unknown()),
    },
    errors: [],
  },
  {
    operationId: 'persons_list',
    summary: "The project's persons, newest first, by cursor; `search` and `properties` filter",
    tag: 'persons',
    query: personsQuerySchema,
    response: { status: 200, description: 'A page of persons', schema: personPageSchema },
    errors: [400, 403, 404],
  },
  {
    operationId: 'persons_retrieve',
    summary: 'One person, by uuid',
    tag: 'persons',
    response: { status: 200, description: 'The person', schema: personSchema },
    errors: [403, 404],
  },
  {
    operationId: 'groups_list',
    summary: "The project's groups of one type, newest first, by cursor; `search` on key and properties",
    tag: 'groups',
    query: groupsListQuerySchema,
    response: { status: 200, description: 'A page of groups', schema: groupPageSchema },
    errors: [400, 403, 404],
  },
  {
    operationId: 'groups_find_retrieve',
    summary: 'One group, by type index and key',
    tag: 'groups',
    query: groupsFindQuerySchema,
    response: { status: 200, description: 'The group', schema: groupSchema },
    errors: [400, 403, 404],
  },
  {
    operationId: 'groups_types_list',
    summary: "The project's group types, by index",
    tag: 'groups',
    response: { status: 200, description: 'The group types', schema: z.array(groupTypeSchema) },
    errors: [403, 404],
  },
  ...cohortOperations(),
  ...pluginOperations(),
  ...flagManagementOperations(),
  ...captureOperations(),
  ...publicFlagOperations(),
  ...queryOperations(),
];

/** The query API, under `/api/projects/` and `/api/environments/` (docs/query-api.md). */
function queryOperations(): OperationDoc[] {
  return ['query', 'environments_query'].flatMap((prefix) => [
    {
      operationId: `${prefix}_create`,
      summary:
        "Run a query (`HogQLQuery`, `TrendsQuery`, `FunnelsQuery`, `EventsQuery`, or a display node's `source`) over the project's events lake; an async `refresh` mode answers 202 with its `query_status`",
      tag: 'query',
      body: queryRequestSchema,
      response: { status: 200, description: "The kind's response", schema: queryResponseSchema },
      otherResponses: [
        {
          status: 202,
          description:
            'Sent to run in the background: its `query_status` (with the stale result when there is one, or the `cache_key`)',
          schema: queryResponseSchema,
        },
      ],
      errors: [400, 404, 415, 504],
    },
    {
      operationId: `${prefix}_retrieve`,
      summary:
        "An async query's status: 202 while it runs, 200 complete (`results` holds the full response), 400 or 500 errored",
      tag: 'query',
      response: { status: 200, description: 'Complete', schema: queryStatusResponseSchema },
      otherResponses: [{ status: 202, description: 'Still running', schema: queryStatusResponseSchema }],
      errors: [400, 404, 500],
    },
    {
      operationId: `${prefix}_destroy`,
      summary: 'Cancel an async query: its run never writes results, and its status is gone',
      tag: 'query',
      response: { status: 204, description: 'Cancelled' },
      errors: [404],
    },
  ]);
}

function cohortOperations(): OperationDoc[] {
  const tag = 'cohorts';
  const cohortList = paginatedSchema(cohortSchema, 'PaginatedCohortList');
  const write = 'JSON, or multipart/form-data with a `csv` file field (static cohorts).';
  return [
    {
      operationId: 'cohorts_list',
      summary: "The project's cohorts, newest first (deleted ones hidden); `search` on the name",
      tag,
      query: pageQuerySchema,
      response: { status: 200, description: 'A page of cohorts', schema: cohortList },
      errors: [400, 403, 404],
    },
    {
      operationId: 'cohorts_create',
      summary: `Create a cohort. ${write}`,
      tag,
      body: cohortWriteSchema,
      response: { status: 201, description: 'The new cohort', schema: cohortSchema },
      errors: [400, 403, 404, 415],
    },
    {
      operationId: 'cohorts_retrieve',
      summary: 'One cohort (deleted ones too)',
      tag,
      response: { status: 200, description: 'The cohort', schema: cohortSchema },
      errors: [403, 404],
    },
    {
      operationId: 'cohorts_partial_update',
      summary: `Change a cohort; soft delete and undelete with \`deleted\`. ${write}`,
      tag,
      body: cohortWriteSchema,
      response: { status: 200, description: 'The cohort', schema: cohortSchema },
      errors: [400, 403, 404, 415],
    },
    {
      operationId: 'cohorts_destroy',
      summary: 'Refused with 405 and no body, as in PostHog: use `PATCH {deleted: true}`',
      tag,
      response: { status: 405, description: 'Method not allowed (empty body)' },
      errors: [403, 404],
    },
    {
      operationId: 'cohorts_persons',
      summary: "The cohort's members by cursor; `?format=csv` for a CSV page",
      tag,
      query: personsQuerySchema,
      response: { status: 200, description: 'A page of persons', schema: personPageSchema },
      errors: [400, 403, 404],
    },
  ];
}

function pluginOperations(): OperationDoc[] {
  const tag = 'plugin_configs';
  const write = "JSON, or multipart/form-data with `config` as a JSON text field (as PostHog's UI sends it).";
  return [
    {
      operationId: 'plugins_list',
      summary: 'The plugins an organization can configure: the built-in catalogue (`@current` allowed)',
      tag: 'plugins',
      query: pageQuerySchema,
      response: {
        status: 200,
        description: 'A page of plugins',
        schema: paginatedSchema(pluginSchema, 'PaginatedPluginList'),
      },
      errors: [400, 403, 404],
    },
    {
      operationId: 'plugin_configs_list',
      summary: "The project's plugin configs, in run order (`plugin_info` null)",
      tag,
      query: pageQuerySchema,
      response: {
        status: 200,
        description: 'A page of plugin configs',
        schema: paginatedSchema(pluginConfigSchema, 'PaginatedPluginConfigList'),
      },
      errors: [400, 403, 404],
    },
    {
      operationId: 'plugin_configs_create',
      summary: `Configure a plugin (a project's existing config of it is updated). ${write}`,
      tag,
      body: pluginConfigWriteSchema,
      response: { status: 201, description: 'The plugin config', schema: pluginConfigSchema },
      errors: [400, 403, 404, 415],
    },
    {
      operationId: 'plugin_configs_rearrange_partial_update',
      summary: 'Set the run order of enabled configs; answers them all as a bare array',
      tag,
      body: rearrangeSchema,
      response: { status: 200, description: 'The enabled configs', schema: z.array(pluginConfigSchema) },
      errors: [400, 403, 404, 415],
    },
    {
      operationId: 'plugin_configs_retrieve',
      summary: 'One plugin config, with `plugin_info`',
      tag,
      response: { status: 200, description: 'The plugin config', schema: pluginConfigSchema },
      errors: [403, 404],
    },
    {
      operationId: 'plugin_configs_partial_update',
      summary: `Change a plugin config. ${write}`,
      tag,
      body: pluginConfigWriteSchema,
      response: { status: 200, description: 'The plugin config', schema: pluginConfigSchema },
      errors: [400, 403, 404, 415],
    },
    {
      operationId: 'plugin_configs_destroy',
      summary: 'Disable a plugin config (it is kept, as in PostHog)',
      tag,
      response: { status: 204, description: 'Disabled' },
      errors: [403, 404],
    },
    {
      operationId: 'plugin_configs_frontend_retrieve',
      summary: "The plugin's frontend app as JavaScript (built-in plugins have none)",
      tag,
      response: { status: 200, description: 'application/javascript text' },
      errors: [403, 404],
    },
    {
      operationId: 'plugin_configs_job_create',
      summary:
        "Request a run of one of the plugin's public jobs (run within a minute: the historical export)",
      tag,
      body: pluginJobSchema,
      response: { status: 200, description: 'Requested (empty body)' },
      errors: [400, 403, 404, 415],
    },
    {
      operationId: 'plugin_configs_logs_list',
      summary: "The config's log entries, newest first (kept 7 days)",
      tag,
      query: pluginLogQuerySchema,
      response: { status: 200, description: 'A page of log entries', schema: pluginLogPageSchema },
      errors: [400, 403, 404],
    },
  ];
}

function flagManagementOperations(): OperationDoc[] {
  const flagList = paginatedSchema(featureFlagSchema, 'PaginatedFeatureFlagList');
  const tag = 'feature_flags';
  return [
    {
      operationId: 'feature_flags_list',
      summary: "The project's feature flags (deleted ones hidden)",
      tag,
      query: pageQuerySchema,
      response: { status: 200, description: 'A page of flags', schema: flagList },
      errors: [400, 403, 404],
    },
    {
      operationId: 'feature_flags_create',
      summary: 'Create a flag; its key is unique among the live flags of the project',
      tag,
      body: flagWriteSchema,
      response: { status: 201, description: 'The new flag', schema: featureFlagSchema },
      errors: [400, 403, 404, 415],
    },
    {
      operationId: 'feature_flags_retrieve',
      summary: 'One flag',
      tag,
      response: { status: 200, description: 'The flag', schema: featureFlagSchema },
      errors: [403, 404],
    },
    {
      operationId: 'feature_flags_partial_update',
      summary: 'Change a flag (soft delete with `deleted: true`)',
      tag,
      body: flagPatchSchema,
      response: { status: 200, description: 'The flag', schema: featureFlagSchema },
      errors: [400, 403, 404, 415],
    },
    {
      operationId: 'feature_flags_destroy',
      summary: 'Refused, as in PostHog: flags are deleted with `PATCH {deleted: true}`',
      tag,
      response: { status: 405, description: 'Method not allowed' },
      errors: [403, 404],
    },
    {
      operationId: 'feature_flags_remote_config',
      summary: "A remote configuration flag's payload (`{id}` may be the flag's key)",
      tag,
      response: { status: 200, description: 'The payload, as JSON text', schema: z.unknown() },
      errors: [403, 404],
    },
  ];
}

function captureOperations(): OperationDoc[] {
  const tag = 'capture';
  const accepted = { status: 200, description: 'Queued: exactly `{"status": 1}`', schema: acceptedSchema };
  const byMethod: Partial<Record<HttpMethod, Omit<OperationDoc, 'operationId'>>> = {
    POST: {
      summary: `Send events. ${tokenNote} Also gzip (magic bytes, \`Content-Encoding\` or \`?compression=gzip-js\`), lz64, and a base64 \`data=\` form.`,
      tag,
      body: captureBodySchema,
      response: accepted,
      errors: [400, 401, 413, 503],
    },
    GET: {
      summary: `Send events as \`?data=\` (base64 JSON). ${tokenNote}`,
      tag,
      query: z.object({ data: z.string().optional(), compression: z.string().optional() }),
      response: accepted,
      errors: [400, 401, 503],
    },
    OPTIONS: { summary: 'CORS preflight', tag, response: accepted, errors: [] },
  };
  return operations
    .filter((operation) => operation.group === 'capture')
    .map((operation) => ({ operationId: operation.id, ...byMethod[operation.method]! }));
}

function publicFlagOperations(): OperationDoc[] {
  const tag = 'flags';
  const evaluation = (id: 'decide' | 'flags', schema: z.ZodType): OperationDoc[] => {
    return [
      {
        operationId: `${id}_create`,
        summary: `Evaluate the project's flags for a person. ${tokenNote}`,
        tag,
        query: z.object({ v: z.string().optional().describe('Response version') }),
        body: flagsRequestSchema,
        response: { status: 200, description: 'The flags', schema },
        errors: [400, 401, 503],
      },
      {
        operationId: `${id}_retrieve`,
        summary: 'The configuration only, no flags (as PostHog answers a GET)',
        tag,
        response: { status: 200, description: 'Configuration', schema },
        errors: [],
      },
      {
        operationId: `${id}_options`,
        summary: 'CORS preflight',
        tag,
        response: { status: 200, description: '`{"status": 1}`', schema: acceptedSchema },
        errors: [],
      },
    ];
  };
  const definitions = (operationId: string): OperationDoc => ({
    operationId,
    summary:
      "The project's flag definitions for SDK local evaluation (personal API key, `?token=` names the project; ETag/304)",
    tag,
    query: z.object({ token: z.string().optional(), send_cohorts: z.string().optional() }),
    response: { status: 200, description: 'The definitions', schema: localEvaluationSchema },
    errors: [401, 403, 404],
  });
  const remote = (operationId: string, summary: string): OperationDoc[] => [
    {
      operationId,
      summary,
      tag,
      response: { status: 200, description: 'The remote config', schema: remoteConfigSchema },
      errors: [404],
    },
    {
      operationId: `${operationId}_options`,
      summary: 'CORS preflight',
      tag,
      response: { status: 200, description: '`{"status": 1}`', schema: acceptedSchema },
      errors: [],
    },
  ];
  return [
    ...evaluation('decide', decideResponseSchema),
    ...evaluation('flags', flagsResponseSchema),
    definitions('flags_definitions_retrieve'),
    definitions('feature_flag_local_evaluation_retrieve'),
    ...remote('remote_config_retrieve', 'posthog-js remote config, as JSON'),
    ...remote(
      'remote_config_js_retrieve',
      'posthog-js remote config, as a script (`text/javascript`; the JSON shape is shown)',
    ),
  ];
}
