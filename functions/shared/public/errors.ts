import { AuthenticationError, ServiceUnavailableError, ValidationError } from '../http/errors';

/**
 * What the public endpoints (capture, decide, flags, remote config) share of PostHog's answers: the
 * credential errors (`posthog/api/capture.py`), built by Django's `generate_exception_response`
 * as `{type, code, detail, attr}`, and the decoding failure each endpoint words its own way.
 */

/**
 * The body could not be decoded (`malformed`: bad gzip, lz64, base64 or JSON) or decoded to nothing
 * (`no_data`). Not an HTTP error: capture answers `invalid_payload`/`no_data`, decide `malformed_data`.
 */
export class DecodeError extends Error {
  constructor(
    readonly reason: 'malformed' | 'no_data',
    message: string,
  ) {
    super(message);
    this.name = 'DecodeError';
  }
}

export const missingApiKey = (): AuthenticationError =>
  new AuthenticationError(
    'missing_api_key',
    'API key not provided. You can find your project API key in PostHog project settings.',
  );

/** Django 2023's token shape check (`_check_token_shape`): only `not_string` applies to Flock. */
export const tokenNotString = (): AuthenticationError =>
  new AuthenticationError('not_string', 'Provided API key is not valid: not_string');

export const invalidApiKey = (): AuthenticationError =>
  new AuthenticationError(
    'invalid_api_key',
    'Project API key invalid. You can find your project API key in PostHog project settings.',
  );

export const invalidProjectId = (): ValidationError =>
  new ValidationError('invalid_project', 'Invalid Project ID.', 'project_id');

/** A personal API key (sent with a `project_id`) that Flock does not know: every public endpoint. */
export const invalidPersonalApiKey = (): AuthenticationError =>
  new AuthenticationError('invalid_personal_api_key', 'Invalid Personal API key.');

/** A known personal key whose user has no project with the given id. */
export const noTeamForPersonalApiKey = (): AuthenticationError =>
  new AuthenticationError('invalid_personal_api_key', 'No team found for API Key');

/** 503: the token could not be looked up; the SDK retries (`fetch_team_fail`). */
export const fetchTeamFailed = (): ServiceUnavailableError =>
  new ServiceUnavailableError('Unable to fetch team from database.', 'fetch_team_fail');
