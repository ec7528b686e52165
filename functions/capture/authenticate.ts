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

/** What a public endpoint answers when a request's credentials do not lead to a project. */
export interface CredentialErrors {
  /** No token at all. */
  readonly missing: () => HttpError;
  /** A personal API key (with `project_id`) that Flock does not know. */
  readonly unknownPersonalKey: () => HttpError;
  /** A known personal key, but the project is outside its organizations. */
  readonly noTeam: () => HttpError;
}

/**
 * The project a public request (capture, decide, flags) is for, found where PostHog looks for the
 * token (reference §1.3, Django `get_team`), each endpoint answering with its own errors:
 * - no token → `missing`; a token that is not a string → 401 `not_string`;
 * - a project token → its project (cached per container for 5 s);
 * - otherwise the token is a personal API key if a `project_id` comes with it: a non-integer id →
 *   400 `invalid_project`, no id → 401 `invalid_api_key`, an unknown key → `unknownPersonalKey`,
 *   a project outside the key's organizations → `noTeam`;
 * - the table unreachable → 503 `fetch_team_fail`, which the SDKs retry.
 */
export async function projectOfRequest(
  tableName: string,
  payload: unknown,
  form: URLSearchParams | undefined,
  event: HttpEvent,
  errors: CredentialErrors,
): Promise<ProjectTokenItem> {
  const token = tokenOf(payload, form, event);
  if (token === undefined) throw errors.missing();
  if (typeof token !== 'string') throw tokenNotString();
  try {
    const project = await projectOfToken(tableName, token.trim());
    if (project) return project;
    const projectId = projectIdOf(payload, form, event);
    if (projectId === undefined) throw invalidApiKey();
    const viaKey = await projectOfPersonalApiKey(tableName, token.trim(), projectId);
    if (viaKey.kind === 'unknown_key') throw errors.unknownPersonalKey();
    if (viaKey.kind === 'no_team') throw errors.noTeam();
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

/** Capture's errors (spec §7): 401 `missing_api_key`, `invalid_personal_api_key`. */
const captureErrors: CredentialErrors = {
  missing: missingApiKey,
  unknownPersonalKey: invalidPersonalApiKey,
  noTeam: noTeamForPersonalApiKey,
};

/** The project a capture request's events belong to (spec §5, §7). */
export function authenticateCapture(
  tableName: string,
  payload: unknown,
  form: URLSearchParams | undefined,
  event: HttpEvent,
): Promise<ProjectTokenItem> {
  return projectOfRequest(tableName, payload, form, event, captureErrors);
}
