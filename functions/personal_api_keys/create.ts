import { generatePersonalApiKey } from '../shared/auth/secrets';
import { createPersonalApiKey } from '../shared/db/personal-api-keys';
import { parseBody, privateRoute } from '../shared/http/private-route';
import { json } from '../shared/http/responses';
import { personalApiKeyCreateSchema } from '../shared/schemas/personal-api-key';
import { serializePersonalApiKey } from './serialize';

/**
 * `POST /api/personal_api_keys/`: a new key for the caller. The response is the only place its value
 * ever appears: only its SHA-256 is stored. 201.
 */
export const createKey = privateRoute(async ({ mainTable, event, caller }) => {
  const { label } = parseBody(event, personalApiKeyCreateSchema);
  const value = generatePersonalApiKey();
  const key = await createPersonalApiKey(mainTable, caller.user.id, label, value);
  return json(201, serializePersonalApiKey(key, value));
});
