import type { CredentialErrors } from '../capture/authenticate';
import { projectOfRequest } from '../capture/authenticate';
import type { ProjectTokenItem } from '../shared/db/projects';
import type { HttpEvent } from '../shared/http/types';
import { invalidPersonalKey, noApiKey, noTeamForPersonalKey } from './errors';

/** Decide's errors (reference §2.3): 401 `no_api_key`, `invalid_personal_key`. */
const flagsErrors: CredentialErrors = {
  missing: noApiKey,
  unknownPersonalKey: invalidPersonalKey,
  noTeam: noTeamForPersonalKey,
};

/**
 * The project a `/decide` or `/flags` request is for (reference §2.3, Django `decide`), found the way
 * capture finds it (same token places, same 5-second per-container cache) with decide's own errors.
 */
export function authenticateFlagsRequest(
  tableName: string,
  payload: unknown,
  form: URLSearchParams | undefined,
  event: HttpEvent,
): Promise<ProjectTokenItem> {
  return projectOfRequest(tableName, payload, form, event, flagsErrors);
}
