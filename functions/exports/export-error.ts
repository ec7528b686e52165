import { EndpointRefusedError } from './guarded-agent';

/**
 * What a project's members are told when an export fails: in the config's `error` and its log, a
 * message and a code from this small set, never the network error itself. A raw error would carry
 * the address and port the function tried (`connect ECONNREFUSED 10.0.0.7:5432`) and a stack: a map
 * of what answers inside the deployment. The operator's log keeps the raw error.
 */
export type ExportErrorCode =
  /** The endpoint is, or resolves to, an address exports may not reach; nothing was connected to. */
  | 'endpoint_refused'
  /** No connection, or no answer, within the time the export had. */
  | 'endpoint_timeout'
  /** The connection failed (refused, reset, no such name, TLS). */
  | 'endpoint_unreachable'
  /** S3 answered with an error (a missing bucket, denied credentials…): its code and message. */
  | 's3_error'
  /** The config's settings cannot be used (its setup refuses them). */
  | 'invalid_config'
  /** Anything else. */
  | 'export_failed';

export interface ExportFailure {
  readonly code: ExportErrorCode;
  readonly message: string;
}

const fixedMessages: Record<Exclude<ExportErrorCode, 's3_error' | 'invalid_config'>, string> = {
  endpoint_refused:
    'The bucket endpoint resolves to an address exports may not reach (private, loopback, link-local or reserved).',
  endpoint_timeout: 'The bucket endpoint did not answer in time.',
  endpoint_unreachable: 'The bucket endpoint could not be reached.',
  export_failed: 'The export failed.',
};

const failure = (code: keyof typeof fixedMessages): ExportFailure => ({ code, message: fixedMessages[code] });

/**
 * Node's and OpenSSL's codes of a connection that failed: `ECONNREFUSED`, `ENOTFOUND`,
 * `ERR_TLS_CERT_ALTNAME_INVALID`, `DEPTH_ZERO_SELF_SIGNED_CERT`… (the SDK's service errors have none).
 */
const connectionCodes = /^[A-Z][A-Z0-9_]{1,63}$/;

/** One line of printable text, bounded: what S3 (or whatever answered) said. */
const printable = (text: string, max: number): string =>
  text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .trim()
    .slice(0, max);

interface ServiceErrorShape {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
}

/** The failure to tell a project's members, from whatever an upload threw. */
export function exportFailureOf(error: unknown): ExportFailure {
  if (error instanceof EndpointRefusedError) return failure('endpoint_refused');
  if (typeof error !== 'object' || error === null) return failure('export_failed');
  const { name, message, code, $metadata } = error as ServiceErrorShape;
  // The SDK's timeouts, and the export's own budget (AbortSignal.timeout's reason, or the abort).
  if (name === 'AbortError' || name === 'TimeoutError' || code === 'ETIMEDOUT')
    return failure('endpoint_timeout');
  // The SDK's service errors carry the HTTP status of the answer; a failed connection has none.
  if (typeof $metadata?.httpStatusCode === 'number') {
    const s3Code =
      typeof name === 'string' && /^[A-Za-z][A-Za-z0-9.]{0,63}$/.test(name) ? name : 'UnknownError';
    const said = typeof message === 'string' ? printable(message, 200) : '';
    return {
      code: 's3_error',
      message: `S3 refused the upload (${$metadata.httpStatusCode} ${s3Code})${said ? `: ${said}` : '.'}`,
    };
  }
  if ((typeof code === 'string' && connectionCodes.test(code)) || message === 'socket hang up')
    return failure('endpoint_unreachable');
  return failure('export_failed');
}

/** A config whose setup fails: its own message (the plugin's, or the endpoint rules'). */
export const invalidConfig = (message: string): ExportFailure => ({
  code: 'invalid_config',
  message: printable(message, 500),
});
