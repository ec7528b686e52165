import { gunzipSync } from 'node:zlib';
import { ValidationError } from '../shared/http/errors';
import { bodyBytes, header, queryParam } from '../shared/http/request';
import type { HttpEvent } from '../shared/http/types';

/**
 * Request body → JSON payload, following PostHog's decoding pipeline (reference §1.2, sdk-wire §4).
 * Errors are 400 `invalid_payload` (`Malformed request data: …`) or 400 `no_data`.
 */

const gzipMagic = (bytes: Buffer): boolean => bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

export function malformed(reason: string): ValidationError {
  return new ValidationError('invalid_payload', `Malformed request data: ${reason}`);
}

export function noData(): ValidationError {
  return new ValidationError(
    'no_data',
    'No data found. Make sure to use a POST request when sending the payload in the body of the request.',
  );
}

/** The compression hint: query `compression`, then the `Content-Encoding` header; lower-cased. */
function compressionHint(event: HttpEvent): string | undefined {
  return (queryParam(event, 'compression') || header(event, 'content-encoding') || undefined)?.toLowerCase();
}

function gunzip(bytes: Buffer, maxBytes: number): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: maxBytes });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new DecompressedTooLargeError();
    throw malformed(`Failed to decompress data. ${(error as Error).message}`);
  }
}

/** Raised when a compressed body would decompress beyond the limit (no gzip bombs). */
export class DecompressedTooLargeError extends Error {}

/** `NaN`, `Infinity` and `-Infinity` literals, outside strings, read as null (Python's json does). */
function parseLenientJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const replaced = text.replace(/"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)/g, (match, literal: string | undefined) =>
      literal ? 'null' : match,
    );
    if (replaced === text) throw error;
    return JSON.parse(replaced);
  }
}

export function decodePayload(event: HttpEvent, maxBytes: number): unknown {
  let bytes = bodyBytes(event);
  if (event.requestContext.http.method === 'GET') {
    const data = queryParam(event, 'data');
    bytes = Buffer.from(data ?? '', 'utf8');
  }
  if (bytes.length === 0) throw noData();
  const hint = compressionHint(event);
  if (hint === 'gzip' || hint === 'gzip-js' || gzipMagic(bytes)) bytes = gunzip(bytes, maxBytes);
  let payload: unknown;
  try {
    payload = parseLenientJson(bytes.toString('utf8'));
  } catch (error) {
    throw malformed(`Invalid JSON: ${(error as Error).message}`);
  }
  if (isEmpty(payload)) throw noData();
  return payload;
}

function isEmpty(payload: unknown): boolean {
  if (payload === null || payload === undefined || payload === '' || payload === false) return true;
  if (Array.isArray(payload)) return payload.length === 0;
  return typeof payload === 'object' && Object.keys(payload).length === 0;
}
