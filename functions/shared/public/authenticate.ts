import type { ProjectTokenItem } from '../db/projects';
import { HttpError } from '../http/errors';
import type { HttpEvent } from '../http/types';
import { logger } from '../logger';
import {
  fetchTeamFailed,
  invalidApiKey,
  invalidPersonalApiKey,
  noTeamForPersonalApiKey,
  tokenNotString,
} from './errors';
import { projectOfPersonalApiKey, projectOfToken } from './projects';
import { projectIdOf, tokenOf } from './token';

/**
 * The project a public request (capture, decide, flags) is for, found where PostHog looks for the
 * token (`posthog/api/utils.py`, Django `get_team`):
 * - no token → `missing` (each endpoint words it: capture `missing_api_key`, decide `no_api_key`);
 *   a token that is not a string → 401 `not_string`;
 * - a project token → its project (cached per container for 5 s);
 * - otherwise the token is a personal API key if a `project_id` comes with it: a non-integer id →
 *   400 `invalid_project`, no id → 401 `invalid_api_key`, an unknown key or a project outside the
 *   key's organizations → 401 `invalid_personal_api_key` (as on every Flock endpoint);
 * - the table unreachable → 503 `fetch_team_fail`, which the SDKs retry.
 */
export async function projectOfRequest(
  tableName: string,
  payload: unknown,
  form: URLSearchParams | undefined,
  event: HttpEvent,
  missing: () => HttpError,
): Promise<ProjectTokenItem> {
  const token = tokenOf(payload, form, event);
  if (token === undefined) throw missing();
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
    logger.error('Could not resolve the project of a public request', {
      requestId: event.requestContext.requestId,
      path: event.rawPath,
      error: error as Error,
    });
    throw fetchTeamFailed();
  }
}
