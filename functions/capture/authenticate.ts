import type { ProjectTokenItem } from '../shared/db/projects';
import { HttpError } from '../shared/http/errors';
import type { HttpEvent } from '../shared/http/types';
import { logger } from '../shared/logger';
import {
  fetchTeamFailed,
  invalidApiKey,
  invalidPersonalApiKey,
  missingApiKey,
  noTeamForPersonalApiKey,
  tokenNotString,
} from './errors';
import { projectOfPersonalApiKey, projectOfToken } from './projects';
import { projectIdOf, tokenOf } from './token';

/**
 * The project a capture request's events belong to (spec §5, §7; reference §1.4, Django `get_team`):
 * - no token → 401 `missing_api_key`; a token that is not a string → 401 `not_string`;
 * - a project token → its project;
 * - otherwise the token is a personal API key if a `project_id` comes with it: a non-integer id →
 *   400 `invalid_project`, no id → 401 `invalid_api_key`, an unknown key → 401
 *   `invalid_personal_api_key`, a project outside the key's organizations → 401
 *   `invalid_personal_api_key` "No team found for API Key";
 * - the table unreachable → 503 `fetch_team_fail`, which the SDKs retry.
 */
export async function authenticateCapture(
  tableName: string,
  payload: unknown,
  form: URLSearchParams | undefined,
  event: HttpEvent,
): Promise<ProjectTokenItem> {
  const token = tokenOf(payload, form, event);
  if (token === undefined) throw missingApiKey();
  if (typeof token !== 'string') throw tokenNotString();
  try {
    const project = await projectOfToken(tableName, token.trim());
    if (project) return project;
    const projectId = projectIdOf(payload, form, event);
    if (projectId === undefined) throw invalidApiKey();
    const viaKey = await projectOfPersonalApiKey(tableName, token.trim(), projectId);
    if (viaKey.kind === 'unknown_key') throw invalidPersonalApiKey();
    if (viaKey.kind === 'no_team') throw noTeamForPersonalApiKey();
    return viaKey.project;
  } catch (error) {
    if (error instanceof HttpError) throw error;
    logger.error('Could not resolve the project of a capture request', {
      requestId: event.requestContext.requestId,
      error: error as Error,
    });
    throw fetchTeamFailed();
  }
}
