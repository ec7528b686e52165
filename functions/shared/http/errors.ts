import type { ZodError } from 'zod';

/** The error body of every Flock response: PostHog's `{type, code, detail, attr}` (drf-exceptions-hog). */
export interface ErrorBody {
  type: string;
  code: string;
  detail: string;
  attr: string | null;
}

/** An error that becomes an HTTP response. `expose` is false for 5xx: their detail never leaves the server. */
export class HttpError extends Error {
  readonly expose: boolean;

  constructor(
    readonly statusCode: number,
    readonly type: string,
    readonly code: string,
    readonly detail: string,
    readonly attr: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = new.target.name;
    this.expose = statusCode < 500;
  }

  toBody(): ErrorBody {
    return { type: this.type, code: this.code, detail: this.detail, attr: this.attr };
  }
}

export class ValidationError extends HttpError {
  constructor(code: string, detail: string, attr: string | null = null) {
    super(400, 'validation_error', code, detail, attr);
  }
}

export class AuthenticationError extends HttpError {
  constructor(code: string, detail: string) {
    super(401, 'authentication_error', code, detail);
  }
}

export class PermissionDeniedError extends HttpError {
  constructor(detail = 'You do not have permission to perform this action.') {
    super(403, 'authentication_error', 'permission_denied', detail);
  }
}

export class NotFoundError extends HttpError {
  constructor(detail = 'Not found.') {
    super(404, 'invalid_request', 'not_found', detail);
  }
}

export class MethodNotAllowedError extends HttpError {
  constructor(method: string) {
    super(405, 'invalid_request', 'method_not_allowed', `Method "${method}" not allowed.`);
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor() {
    super(413, 'client_error', 'request_too_large', 'Request too large.');
  }
}

/** A transient failure the client should retry (SDKs retry 5xx; duplicates are deduplicated by uuid). */
export class ServiceUnavailableError extends HttpError {
  constructor(detail: string, code = 'service_unavailable', retryAfterSeconds = 5) {
    super(503, 'server_error', code, detail, null, { 'Retry-After': String(retryAfterSeconds) });
    // The detail is chosen for the client, unlike an unexpected 5xx.
    (this as { expose: boolean }).expose = true;
  }
}

/** The generic answer to anything unexpected; the real error is logged, never serialised. */
export const internalErrorBody: ErrorBody = {
  type: 'server_error',
  code: 'error',
  detail: 'A server error occurred.',
  attr: null,
};

/** DRF renames the generic `invalid` code to `invalid_input`; zod's codes map onto DRF's. */
const zodCodeToDrf: Record<string, string> = {
  invalid_type: 'invalid_input',
  too_small: 'invalid_input',
  too_big: 'invalid_input',
  invalid_format: 'invalid_input',
  invalid_value: 'invalid_choice',
  unrecognized_keys: 'invalid_input',
  custom: 'invalid_input',
};

/** A `ZodError` as a 400 `validation_error` naming the offending field (nested fields joined by `__`). */
export function validationErrorFromZod(error: ZodError): ValidationError {
  const issue = error.issues[0];
  if (!issue) return new ValidationError('invalid_input', 'Malformed request');
  // zod 4 leaves `input` out of issues unless asked; a missing field reads "… received undefined".
  const missing = issue.code === 'invalid_type' && /received undefined$/.test(issue.message);
  const code = missing ? 'required' : (zodCodeToDrf[issue.code] ?? 'invalid_input');
  const detail = missing ? 'This field is required.' : issue.message;
  const attr = issue.path.length > 0 ? issue.path.map(String).join('__') : null;
  return new ValidationError(code, detail, attr);
}
