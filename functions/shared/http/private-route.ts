import type * as z from 'zod';
import type { Caller, ProjectAccess } from '../auth/private-api';
import { authenticate, resolveProjectAccess } from '../auth/private-api';
import type { PrivateApiConfig } from '../config';
import { validationErrorFromZod } from './errors';
import { requestBody } from './json-body';
import type { HttpEvent, HttpResult, RouteFunction } from './types';

/** What a private route function gets: its handler's configuration (the tables), the request and who sent it. */
export type PrivateRequest<C extends PrivateApiConfig = PrivateApiConfig> = C & {
  readonly event: HttpEvent;
  readonly caller: Caller;
};

/** What a route under `/api/projects/:project_id/` gets: also the project, already scoped. */
export type ProjectRequest<C extends PrivateApiConfig = PrivateApiConfig> = PrivateRequest<C> & ProjectAccess;

/** A route of the private API: the caller is authenticated before `fn` runs (401 otherwise). */
export function privateRoute<C extends PrivateApiConfig = PrivateApiConfig>(
  fn: (request: PrivateRequest<C>) => Promise<HttpResult>,
): RouteFunction<C> {
  return async (event, config) =>
    fn({ ...config, event, caller: await authenticate(event, config.singleTable) });
}

/**
 * A route of one project (`:project_id`, `@current` allowed): authenticated, then scoped to a project
 * of the caller's organizations (404 unknown, 403 another organization's) before `fn` runs.
 */
export function projectRoute<C extends PrivateApiConfig = PrivateApiConfig>(
  fn: (request: ProjectRequest<C>) => Promise<HttpResult>,
): RouteFunction<C> {
  return privateRoute<C>(async (request) => {
    const access = await resolveProjectAccess(
      request.caller,
      request.event.pathParameters?.project_id,
      request.singleTable,
    );
    return fn({ ...request, ...access });
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
