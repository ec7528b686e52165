import { AuthenticationError, ValidationError } from '../shared/http/errors';

/**
 * The errors `/decide` and `/flags` answer besides capture's own (reference §2.3, Django 2023 bodies):
 * decide spells a few codes differently from capture.
 */

/** 401: no token anywhere in the request (Django 2023+; 2022 answered 200 with no flags). */
export const noApiKey = (): AuthenticationError =>
  new AuthenticationError(
    'no_api_key',
    'No project API key provided. You can find your project API key in PostHog project settings.',
  );

/** 401: a personal API key (sent with a `project_id`) that is unknown; decide's code, not capture's. */
export const invalidPersonalKey = (): AuthenticationError =>
  new AuthenticationError('invalid_personal_key', 'Invalid Personal API key.');

/** 401: a known personal key whose user has no project with the given id. */
export const noTeamForPersonalKey = (): AuthenticationError =>
  new AuthenticationError('invalid_personal_key', 'No team found for API Key');

/** 400: flags are evaluated for someone, and the request says for whom nowhere. */
export const missingDistinctId = (): ValidationError =>
  new ValidationError('missing_distinct_id', 'Decide requires a distinct_id.');

/** 400: the body could not be decoded; capture's detail under decide's code. */
export const malformedData = (detail: string): ValidationError =>
  new ValidationError('malformed_data', detail);
