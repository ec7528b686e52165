import { listPersonalApiKeys } from '../shared/db/personal-api-keys';
import { NotFoundError } from '../shared/http/errors';
import { privateRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { serializePersonalApiKey } from './serialize';

/**
 * `GET /api/personal_api_keys/:id/`: one of the caller's keys, masked; another user's is 404.
 * `@current` is the key the request came with (PostHog's lookup), so a key can read its own scopes.
 */
export const retrieveKey = privateRoute(async ({ singleTable, event, caller }) => {
  const id = event.pathParameters?.id;
  if (id === '@current') return json(200, serializePersonalApiKey(caller.key));
  const key = (await listPersonalApiKeys(singleTable, caller.user.id)).find(
    (candidate) => candidate.id === id,
  );
  if (!key) throw new NotFoundError();
  return json(200, serializePersonalApiKey(key));
});
