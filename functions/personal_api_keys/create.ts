import { missingScopeError } from '../shared/auth/private-api';
import { fullAccess, missingScope } from '../shared/auth/scopes';
import { generatePersonalApiKey } from '../shared/auth/secrets';
import { createPersonalApiKey } from '../shared/db/personal-api-keys';
import { parseBody, privateRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { personalApiKeyCreateSchema } from '../shared/schemas/personal-api-key';
import { serializePersonalApiKey } from './serialize';

/**
 * `POST /api/personal_api_keys/`: a new key for the caller. The response is the only place its value
 * ever appears: only its SHA-256 is stored. 201. Its `scopes` (`*` unless given) must all be granted
 * by the calling key: a key cannot mint a broader one (403, naming the first scope it lacks).
 */
export const createKey = privateRoute(async ({ singleTable, event, caller }) => {
  const { label, scopes = fullAccess } = parseBody(event, personalApiKeyCreateSchema);
  const broader = missingScope(caller.key.scopes, scopes);
  if (broader) throw missingScopeError(broader);
  const value = generatePersonalApiKey();
  const key = await createPersonalApiKey(singleTable, caller.user.id, label, value, scopes);
  return json(201, serializePersonalApiKey(key, value));
});
