import { ServiceUnavailableError, ValidationError } from '../shared/http/errors';
import { DecodeError } from '../shared/public/errors';

/**
 * Capture's own answers (PostHog's `posthog/api/capture.py`; bad input is a 4xx, never a 500), besides the credential errors every public
 * endpoint shares (shared/public/errors.ts). Django builds them with `generate_exception_response`.
 */

/** 400: the body could not be decoded (`get_data`). */
const malformedRequest = (reason: string): ValidationError =>
  new ValidationError('invalid_payload', `Malformed request data: ${reason}`);

/** 400: decoding worked but yielded nothing (`GET /e/?data=`, `{}`, `[]`). */
const noData = (): ValidationError =>
  new ValidationError(
    'no_data',
    'No data found. Make sure to use a POST request when sending the payload in the body of the request.',
  );

/** A decoding failure as capture answers it; any other error is left as it is. */
export function captureDecodeError(error: unknown): unknown {
  if (!(error instanceof DecodeError)) return error;
  return error.reason === 'no_data' ? noData() : malformedRequest(error.message);
}

/** 400: the events themselves are unusable (non-dict event, bad uuid, …). */
export const invalidPayload = (reason: string): ValidationError =>
  new ValidationError('invalid_payload', `Invalid payload: ${reason}`);

/** 503: the queue refused the events; Django's answer to a Kafka produce failure. */
export const eventsNotQueued = (): ServiceUnavailableError =>
  new ServiceUnavailableError(
    'Unable to store event. Please try again. If you are the owner of this app you can check the logs for further details.',
    'server_error',
  );
