import { fetchTeamFailed, invalidApiKey, tokenNotString } from '../capture/errors';
import { projectOfPersonalApiKey, projectOfToken } from '../capture/projects';
import { projectIdOf, tokenOf } from '../capture/token';
import type { ProjectTokenItem } from '../shared/db/projects';
import { HttpError } from '../shared/http/errors';
import type { HttpEvent } from '../shared/http/types';
import { logger } from '../shared/logger';
import { invalidPersonalKey, noApiKey, noTeamForPersonalKey } from './errors';

/**
 * The project a `/decide` or `/flags` request is for (reference §2.3, Django `decide`), found the way
 * capture finds it (same token places, same 5-second per-container cache) with decide's own errors:
 * no token → 401 `no_api_key`; an unknown token without `project_id` → 401 `invalid_api_key`; a
 * personal API key with `project_id` that is unknown → 401 `invalid_personal_key`; the table
 * unreachable → 503 `fetch_team_fail`.
 */
export async function authenticateFlagsRequest(
  tableName: string,
  payload: unknown,
  form: URLSearchParams | undefined,
  event: HttpEvent,
): Promise<ProjectTokenItem> {
  const token = tokenOf(payload, form, event);
  if (token === undefined) throw noApiKey();
  if (typeof token !== 'string') throw tokenNotString();
  try {
    const project = await projectOfToken(tableName, token.trim());
    if (project) return project;
    const projectId = projectIdOf(payload, form, event);
    if (projectId === undefined) throw invalidApiKey();
    const viaKey = await projectOfPersonalApiKey(tableName, token.trim(), projectId);
    if (viaKey.kind === 'unknown_key') throw invalidPersonalKey();
    if (viaKey.kind === 'no_team') throw noTeamForPersonalKey();
    return viaKey.project;
  } catch (error) {
    if (error instanceof HttpError) throw error;
    logger.error('Could not resolve the project of a flags request', {
      requestId: event.requestContext.requestId,
      error: error as Error,
    });
    throw fetchTeamFailed();
  }
}
