import { PayloadTooLargeError } from '../http/errors';
import { maxJsonDepth, nestsDeeperThan } from '../http/json-depth';
import { bodyBytes, header, queryParam } from '../http/request';
import type { HttpEvent } from '../http/types';
import { gunzip, isGzip, lz64, unwrapBase64 } from './decompress';
import { DecodeError } from './errors';
import { parseLenientJson } from './json';
import { isTruthy } from './python';

/**
 * Request → JSON payload: PostHog's decoding pipeline (`posthog/utils.py`, Django
 * `load_data_from_request`) extended with what today's SDKs send:
 *
 * 1. the raw payload: the body of a POST (API Gateway's base64 undone), the `data` field of a form
 *    body, or `?data=` of a GET;
 * 2. gzip recognised by its magic bytes whatever the headers say (posthog-js ≥ 1.2xx sends gzip as
 *    `text/plain` with no hint at all). This also plays Django's implicit gzip retry: Python's
 *    `gzip.decompress` succeeds only on data starting with those bytes, so retrying after a JSON error
 *    and sniffing first accept the same bodies, and sniffing costs 2 bytes instead of a failed parse;
 * 3. the hint (query `compression`, form `compression`, `Content-Encoding`): `gzip`/`gzip-js`, `lz64`;
 * 4. opportunistic base64, then JSON with NaN/Infinity read as null, at most `maxJsonDepth` deep.
 */

export interface DecodedRequest {
  /** The decoded JSON payload; never empty (Python-falsy payloads are answered with `no_data`). */
  readonly payload: unknown;
  /** The fields of a form body (`data=…&compression=…&api_key=…`), where PostHog also looks. */
  readonly form: URLSearchParams | undefined;
}

/** The payload before decompression, and where it came from. */
interface RawPayload {
  readonly data: Buffer | string;
  readonly form: URLSearchParams | undefined;
  readonly gunzipped: boolean;
}

const formType = 'application/x-www-form-urlencoded';
const dataField = Buffer.from('data=');

function contentType(event: HttpEvent): string {
  return (header(event, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/** `data=…` bodies sent without the form content type: text starting with `data=` is a form. */
const startsWithDataField = (bytes: Buffer): boolean =>
  bytes.length >= dataField.length && bytes.subarray(0, dataField.length).equals(dataField);

function rawPayload(event: HttpEvent, maxBytes: number): RawPayload {
  if (event.requestContext.http.method === 'GET') {
    return { data: queryParam(event, 'data') ?? '', form: undefined, gunzipped: false };
  }
  let bytes = bodyBytes(event);
  if (bytes.length > maxBytes) throw new PayloadTooLargeError();
  const gunzipped = isGzip(bytes);
  if (gunzipped) bytes = gunzip(bytes, maxBytes);
  // API Gateway may hand a form body over base64-encoded or as text: bodyBytes has undone either.
  if (contentType(event) === formType || startsWithDataField(bytes)) {
    const form = new URLSearchParams(bytes.toString('utf8'));
    return { data: form.get('data') ?? '', form, gunzipped };
  }
  return { data: bytes, form: undefined, gunzipped };
}

/** Django's order: query `compression`, form `compression`, then `Content-Encoding`; lower-cased. */
function compressionHint(event: HttpEvent, form: URLSearchParams | undefined): string {
  return (
    queryParam(event, 'compression') ||
    form?.get('compression') ||
    header(event, 'content-encoding') ||
    ''
  ).toLowerCase();
}

const asText = (data: Buffer | string): string => (typeof data === 'string' ? data : data.toString('utf8'));

function decompress(raw: RawPayload, hint: string, maxBytes: number): string {
  if ((hint === 'gzip' || hint === 'gzip-js') && !raw.gunzipped) {
    const bytes = typeof raw.data === 'string' ? Buffer.from(raw.data, 'latin1') : raw.data;
    return asText(gunzip(bytes, maxBytes));
  }
  if (hint === 'lz64') return lz64(asText(raw.data), maxBytes);
  return asText(raw.data);
}

export interface DecodeOptions {
  /**
   * An empty body (or one decoding to a falsy value) is `{}` instead of a 400 `no_data`: Django's
   * decide reads such a request as no data and goes on to its token check. @default false
   */
  readonly emptyIsNoFields?: boolean;
}

export function decodeRequest(
  event: HttpEvent,
  maxBytes: number,
  options: DecodeOptions = {},
): DecodedRequest {
  const raw = rawPayload(event, maxBytes);
  if (raw.data.length === 0) {
    if (options.emptyIsNoFields) return { payload: {}, form: raw.form };
    throw new DecodeError('no_data', 'No data found.');
  }
  const text = unwrapBase64(decompress(raw, compressionHint(event, raw.form), maxBytes));
  let payload: unknown;
  try {
    payload = parseLenientJson(text);
  } catch (error) {
    throw new DecodeError('malformed', `Invalid JSON: ${(error as Error).message}`);
  }
  if (nestsDeeperThan(payload, maxJsonDepth))
    throw new DecodeError('malformed', `Invalid JSON: nested deeper than ${maxJsonDepth} levels`);
  if (!isTruthy(payload)) {
    if (options.emptyIsNoFields) return { payload: {}, form: raw.form };
    throw new DecodeError('no_data', 'No data found.');
  }
  return { payload, form: raw.form };
}
