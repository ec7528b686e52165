import { listPersonalApiKeys } from '../shared/db/personal-api-keys';
import { paginated, pageOf, slicePage } from '../shared/http/pagination';
import { privateRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { serializePersonalApiKey } from './serialize';

/** `GET /api/personal_api_keys/`: the caller's own keys, newest first, masked. */
export const listKeys = privateRoute(async ({ singleTable, event, caller }) => {
  const page = pageOf(event);
  const keys = await listPersonalApiKeys(singleTable, caller.user.id);
  const results = slicePage(keys, page).map((key) => serializePersonalApiKey(key));
  return json(200, paginated(event, page, keys.length, results));
});
