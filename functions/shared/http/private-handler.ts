import { buildHttpHandler } from './handler';
import type { HttpHandlerOptions } from './handler';
import { personalApiKeyScopes } from './key-scopes';

/**
 * The Lambda handler of a group that serves private routes: every route that declares key scopes
 * (routes.ts) is authenticated, and its scopes checked, before its function runs (key-scopes.ts).
 * Public routes of the same group (the flags group's `/decide/`) pass through unchecked.
 */
export function createPrivateHttpHandler<C = undefined>(options: HttpHandlerOptions<C>) {
  return buildHttpHandler(options, personalApiKeyScopes());
}
