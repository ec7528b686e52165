import { AuthenticationError, ValidationError } from '../shared/http/errors';

/**
 * The errors `/decide` and `/flags` answer besides the credential errors every public endpoint shares
 * (`posthog/api/decide.py`, 2023 bodies): decide spells a few codes differently from capture. An unknown
 * personal API key is `invalid_personal_api_key` here too, as on every Flock endpoint, not Django's
 * `invalid_personal_key`.
 */

/** 401: no token anywhere in the request (Django 2023+; 2022 answered 200 with no flags). */
export const noApiKey = (): AuthenticationError =>
  new AuthenticationError(
    'no_api_key',
    'No project API key provided. You can find your project API key in PostHog project settings.',
  );

/** 400: flags are evaluated for someone, and the request says for whom nowhere. */
export const missingDistinctId = (): ValidationError =>
  new ValidationError('missing_distinct_id', 'Decide requires a distinct_id.');

/** 400: the body could not be decoded; capture's detail under decide's code. */
export const malformedData = (detail: string): ValidationError =>
  new ValidationError('malformed_data', detail);
