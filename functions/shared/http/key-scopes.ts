import type { MiddlewareObj } from '@middy/core';
import { routeScopes, trailingSlash } from '../../routes';
import { authenticateRequest, forgetRequest } from '../auth/private-api';
import { privateApiConfig } from '../config';
import type { HttpEvent, HttpResult } from './types';

/**
 * Every route that declares scopes is authenticated before its function runs: no key → 401, a key
 * without the route's scopes → PostHog's 403 (auth/private-api.ts). So a route function cannot
 * forget the check; the one it makes itself (`privateRoute`) reads the caller found here. A trailing-
 * slash route asked for a deeper path is left to the handler's 404.
 */
export function personalApiKeyScopes(): MiddlewareObj<HttpEvent, HttpResult> {
  let tableName: string | undefined;
  const forget = async (request: { event: HttpEvent }): Promise<void> => forgetRequest(request.event);
  return {
    before: async ({ event }) => {
      if (!routeScopes.has(event.routeKey)) return;
      if (event.routeKey.endsWith(trailingSlash) && event.pathParameters?.proxy) return;
      tableName ??= privateApiConfig().singleTable;
      await authenticateRequest(event, tableName);
    },
    after: forget,
    onError: forget,
  };
}
