import { deletePersonalApiKey } from '../shared/db/personal-api-keys';
import { NotFoundError } from '../shared/http/errors';
import { privateRoute } from '../shared/http/private-route';
import { noContent } from '../shared/http/responses';

/**
 * `DELETE /api/personal_api_keys/:id/`: the key stops working at once (authentication reads keys
 * strongly consistently); capture, which caches what a key resolves to, refuses it within 5 s.
 * Another user's key is 404. 204.
 */
export const destroyKey = privateRoute(async ({ singleTable, event, caller }) => {
  const deleted = await deletePersonalApiKey(singleTable, caller.user.id, event.pathParameters?.id ?? '');
  if (!deleted) throw new NotFoundError();
  return noContent();
});
