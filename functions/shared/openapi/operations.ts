import * as z from 'zod';
import type { HttpMethod } from '../../routes';
import { pageQuerySchema } from '../http/pagination';
import { paginatedSchema } from '../schemas/common';
import {
  eventListQuerySchema,
  eventListSchema,
  eventSchema,
  eventValuesQuerySchema,
  eventValuesSchema,
} from '../schemas/event';
import {
  eventDefinitionQuerySchema,
  eventDefinitionSchema,
  eventDefinitionUpdateSchema,
} from '../schemas/event-definition';
import { personalApiKeyCreateSchema, personalApiKeySchema } from '../schemas/personal-api-key';
import { projectBasicSchema, projectSchema, projectWriteSchema } from '../schemas/project';
import { meSchema, meUpdateSchema } from '../schemas/user';

/**
 * Every operation of the API the OpenAPI document describes, with the zod schemas the handlers
 * validate and answer with: the document is generated from them, so it cannot drift from the code.
 * A test checks each operation is a row of the route table, and that every route of the groups
 * listed there (projects, users, personal API keys, event definitions, events, schema) is documented;
 * the flag and public endpoints are not described yet.
 */
export interface Operation {
  readonly method: HttpMethod;
  /** The canonical path, as PostHog documents it (`/api/projects/{project_id}/`). */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  /** Served without a personal API key. @default false */
  readonly public?: boolean;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly response: { readonly status: number; readonly description: string; readonly schema?: z.ZodType };
  /** Error statuses besides the ones every private operation has (401). */
  readonly errors: readonly number[];
}

const projectList = paginatedSchema(projectBasicSchema, 'PaginatedProjectBasicList');
const keyList = paginatedSchema(personalApiKeySchema, 'PaginatedPersonalApiKeyList');
const definitionList = paginatedSchema(eventDefinitionSchema, 'PaginatedEventDefinitionList');

/** Shared by both spellings of the current user's path. */
const userOperations = (prefix: string, idSuffix: string): Operation[] => [
  {
    method: 'GET',
    path: `${prefix}/users/{user_uuid}/`,
    operationId: `users_retrieve${idSuffix}`,
    summary: 'The current user (`@me`), their current project and organizations',
    tag: 'users',
    response: { status: 200, description: 'The user', schema: meSchema },
    errors: [404],
  },
  {
    method: 'PATCH',
    path: `${prefix}/users/{user_uuid}/`,
    operationId: `users_partial_update${idSuffix}`,
    summary: "Change the current user's name or current project",
    tag: 'users',
    body: meUpdateSchema,
    response: { status: 200, description: 'The user', schema: meSchema },
    errors: [400, 404, 415],
  },
];

export const operations: readonly Operation[] = [
  {
    method: 'GET',
    path: '/api/projects/',
    operationId: 'projects_list',
    summary: "The projects of the caller's current organization",
    tag: 'projects',
    query: pageQuerySchema,
    response: { status: 200, description: 'A page of projects (reduced shape)', schema: projectList },
    errors: [400],
  },
  {
    method: 'POST',
    path: '/api/projects/',
    operationId: 'projects_create',
    summary: "Create a project in the caller's current organization",
    tag: 'projects',
    body: projectWriteSchema,
    response: { status: 201, description: 'The new project', schema: projectSchema },
    errors: [400, 403, 415],
  },
  {
    method: 'GET',
    path: '/api/projects/{project_id}/',
    operationId: 'projects_retrieve',
    summary: 'A project',
    tag: 'projects',
    response: { status: 200, description: 'The project', schema: projectSchema },
    errors: [403, 404],
  },
  {
    method: 'PATCH',
    path: '/api/projects/{project_id}/',
    operationId: 'projects_partial_update',
    summary: "Change some of a project's settings",
    tag: 'projects',
    body: projectWriteSchema,
    response: { status: 200, description: 'The project', schema: projectSchema },
    errors: [400, 403, 404, 415],
  },
  {
    method: 'DELETE',
    path: '/api/projects/{project_id}/',
    operationId: 'projects_destroy',
    summary: 'Delete a project: its token stops working, its data becomes unreachable',
    tag: 'projects',
    response: { status: 204, description: 'Deleted' },
    errors: [403, 404],
  },
  {
    method: 'GET',
    path: '/api/projects/{project_id}/events/',
    operationId: 'events_list',
    summary: "The project's events, newest first, filtered, as JSON or CSV",
    tag: 'events',
    query: eventListQuerySchema,
    response: { status: 200, description: 'A page of events', schema: eventListSchema },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/api/projects/{project_id}/events/values/',
    operationId: 'events_values',
    summary: 'Distinct recent values of an event property, from the latest events and a sample',
    tag: 'events',
    query: eventValuesQuerySchema,
    response: { status: 200, description: 'The values', schema: eventValuesSchema },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/api/projects/{project_id}/events/{event_id}/',
    operationId: 'events_retrieve',
    summary: 'One event by uuid',
    tag: 'events',
    response: { status: 200, description: 'The event', schema: eventSchema },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/api/projects/{project_id}/event_definitions/',
    operationId: 'event_definitions_list',
    summary: "The project's event definitions, by name",
    tag: 'event_definitions',
    query: pageQuerySchema.extend(eventDefinitionQuerySchema.shape),
    response: { status: 200, description: 'A page of event definitions', schema: definitionList },
    errors: [400, 403, 404],
  },
  {
    method: 'GET',
    path: '/api/projects/{project_id}/event_definitions/{id}/',
    operationId: 'event_definitions_retrieve',
    summary: 'An event definition',
    tag: 'event_definitions',
    response: { status: 200, description: 'The event definition', schema: eventDefinitionSchema },
    errors: [403, 404],
  },
  {
    method: 'PATCH',
    path: '/api/projects/{project_id}/event_definitions/{id}/',
    operationId: 'event_definitions_partial_update',
    summary: "Change an event definition's owner, description, tags, verification or Slack setting",
    tag: 'event_definitions',
    body: eventDefinitionUpdateSchema,
    response: { status: 200, description: 'The event definition', schema: eventDefinitionSchema },
    errors: [400, 403, 404, 415],
  },
  {
    method: 'GET',
    path: '/api/personal_api_keys/',
    operationId: 'personal_api_keys_list',
    summary: "The caller's personal API keys, newest first, masked",
    tag: 'personal_api_keys',
    query: pageQuerySchema,
    response: { status: 200, description: 'A page of keys', schema: keyList },
    errors: [400],
  },
  {
    method: 'POST',
    path: '/api/personal_api_keys/',
    operationId: 'personal_api_keys_create',
    summary: 'Create a personal API key; its value is in this response only',
    tag: 'personal_api_keys',
    body: personalApiKeyCreateSchema,
    response: { status: 201, description: 'The new key, with its value', schema: personalApiKeySchema },
    errors: [400, 415],
  },
  {
    method: 'GET',
    path: '/api/personal_api_keys/{id}/',
    operationId: 'personal_api_keys_retrieve',
    summary: "One of the caller's personal API keys, masked",
    tag: 'personal_api_keys',
    response: { status: 200, description: 'The key', schema: personalApiKeySchema },
    errors: [404],
  },
  {
    method: 'DELETE',
    path: '/api/personal_api_keys/{id}/',
    operationId: 'personal_api_keys_destroy',
    summary: 'Delete a personal API key: it stops working at once',
    tag: 'personal_api_keys',
    response: { status: 204, description: 'Deleted' },
    errors: [404],
  },
  ...userOperations('/api', ''),
  ...userOperations('', '_unprefixed'),
  {
    method: 'GET',
    path: '/api/schema/',
    operationId: 'schema_retrieve',
    summary: 'This OpenAPI document',
    tag: 'schema',
    public: true,
    response: {
      status: 200,
      description: 'An OpenAPI 3.1 document',
      schema: z.record(z.string(), z.unknown()),
    },
    errors: [],
  },
];
