import type * as z from 'zod';
import type { Caller, ProjectAccess } from '../auth/private-api';
import { authenticate, resolveProjectAccess } from '../auth/private-api';
import { envNames, loadConfig, singleTableEnv } from '../config';
import { validationErrorFromZod } from './errors';
import { requestBody } from './json-body';
import type { HttpEvent, HttpResult, RouteFunction } from './types';

const config = loadConfig(singleTableEnv);

/** The single table, where every private resource lives. */
export const mainTable: string = config[envNames.singleTable];

/** What a private route function gets: the request and who sent it. */
export interface PrivateRequest {
  readonly event: HttpEvent;
  readonly caller: Caller;
}

/** What a route under `/api/projects/:project_id/` gets: also the project, already scoped. */
export interface ProjectRequest extends PrivateRequest, ProjectAccess {}

/** A route of the private API: the caller is authenticated before `fn` runs (401 otherwise). */
export function privateRoute(fn: (request: PrivateRequest) => Promise<HttpResult>): RouteFunction {
  return async (event) => fn({ event, caller: await authenticate(event, mainTable) });
}

/**
 * A route of one project (`:project_id`, `@current` allowed): authenticated, then scoped to a project
 * of the caller's organizations (404 unknown, 403 another organization's) before `fn` runs.
 */
export function projectRoute(fn: (request: ProjectRequest) => Promise<HttpResult>): RouteFunction {
  return privateRoute(async ({ event, caller }) => {
    const access = await resolveProjectAccess(caller, event.pathParameters?.project_id, mainTable);
    return fn({ event, caller, ...access });
  });
}

/** The JSON body, validated: 400 `parse_error`/415 for a body that is not JSON, 400 `validation_error` naming the field otherwise. */
export function parseBody<S extends z.ZodType>(event: HttpEvent, schema: S): z.output<S> {
  const parsed = schema.safeParse(requestBody(event));
  if (!parsed.success) throw validationErrorFromZod(parsed.error);
  return parsed.data;
}

/** Query parameters, validated like a body. */
export function parseQuery<S extends z.ZodType>(event: HttpEvent, schema: S): z.output<S> {
  const parsed = schema.safeParse(event.queryStringParameters ?? {});
  if (!parsed.success) throw validationErrorFromZod(parsed.error);
  return parsed.data;
}
