import { AuthenticationError, ServiceUnavailableError, ValidationError } from '../shared/http/errors';

/**
 * Every error capture answers, with PostHog's exact bodies (reference §1.4, §1.9; spec §7).
 * Django builds them all with `generate_exception_response` → `{type, code, detail, attr}`.
 */

/** 400: the body could not be decoded (`get_data`). */
export const malformedRequest = (reason: string): ValidationError =>
  new ValidationError('invalid_payload', `Malformed request data: ${reason}`);

/** 400: decoding worked but yielded nothing (`GET /e/?data=`, `{}`, `[]`). */
export const noData = (): ValidationError =>
  new ValidationError(
    'no_data',
    'No data found. Make sure to use a POST request when sending the payload in the body of the request.',
  );

/** 400: the events themselves are unusable (non-dict event, bad uuid, …). */
export const invalidPayload = (reason: string): ValidationError =>
  new ValidationError('invalid_payload', `Invalid payload: ${reason}`);

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

export const invalidPersonalApiKey = (): AuthenticationError =>
  new AuthenticationError('invalid_personal_api_key', 'Invalid Personal API key.');

/** A known personal key whose user has no project with the given id. */
export const noTeamForPersonalApiKey = (): AuthenticationError =>
  new AuthenticationError('invalid_personal_api_key', 'No team found for API Key');

/** 503: the token could not be looked up; the SDK retries (spec §7 `fetch_team_fail`). */
export const fetchTeamFailed = (): ServiceUnavailableError =>
  new ServiceUnavailableError('Unable to fetch team from database.', 'fetch_team_fail');

/** 503: the queue refused the events; Django's answer to a Kafka produce failure. */
export const eventsNotQueued = (): ServiceUnavailableError =>
  new ServiceUnavailableError(
    'Unable to store event. Please try again. If you are the owner of this app you can check the logs for further details.',
    'server_error',
  );
