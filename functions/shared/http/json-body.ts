import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { maxRequestBodyBytes } from './body-limits';
import { HttpError, PayloadTooLargeError } from './errors';
import { maxJsonDepth, nestsDeeperThan } from './json-depth';
import { header } from './request';
import type { HttpEvent, HttpResult } from './types';

/** DRF's ParseError: the body claims to be JSON and is not. */
export class ParseError extends HttpError {
  constructor(reason: string) {
    super(400, 'invalid_request', 'parse_error', `JSON parse error - ${reason}`);
  }
}

/** DRF's UnsupportedMediaType: a body in a format the API does not read. */
export class UnsupportedMediaTypeError extends HttpError {
  constructor(contentType: string) {
    super(
      415,
      'invalid_request',
      'unsupported_media_type',
      `Unsupported media type "${contentType}" in request.`,
    );
  }
}

/** The same test `@middy/http-json-body-parser` applies: `application/json`, `application/x+json`. */
const jsonMediaType = /^application\/(.+\+)?json($|;.+)/;

type Parsed = { readonly body: unknown } | { readonly error: HttpError };
const parsedBodies = new WeakMap<HttpEvent, Parsed>();

/**
 * Parses JSON request bodies with `@middy/http-json-body-parser`, without failing the request yet: a
 * body that is not JSON or nests deeper than `maxJsonDepth` (400 `parse_error`), or is not declared
 * as JSON (415 `unsupported_media_type`), fails only when a route reads it (`requestBody`). That is DRF's order: the caller is authenticated
 * first, so a request with a bad key and a bad body answers 401, and a GET's stray body is ignored.
 * The event's own `body` stays the raw string (other helpers read it as such).
 */
export function jsonBody(): MiddlewareObj<HttpEvent, HttpResult> {
  const parser = httpJsonBodyParser();
  return {
    before: async (request) => {
      const { event } = request;
      if (event.body === undefined || event.body === null || event.body === '') return;
      const bytes = event.isBase64Encoded
        ? Buffer.byteLength(event.body, 'base64')
        : Buffer.byteLength(event.body, 'utf8');
      if (bytes > maxRequestBodyBytes) {
        parsedBodies.set(event, { error: new PayloadTooLargeError() });
        return;
      }
      const contentType = header(event, 'content-type') ?? '';
      if (!jsonMediaType.test(contentType)) {
        parsedBodies.set(event, { error: new UnsupportedMediaTypeError(contentType) });
        return;
      }
      // The parser replaces `event.body` in place: give it a copy, keep the original event as it came.
      const copy = { ...request, event: { ...event } };
      try {
        await parser.before?.(copy);
        const body = copy.event.body as unknown;
        parsedBodies.set(
          event,
          nestsDeeperThan(body, maxJsonDepth)
            ? { error: new ParseError(`Nested deeper than ${maxJsonDepth} levels.`) }
            : { body },
        );
      } catch (error) {
        const cause = (error as { cause?: { message?: string } }).cause;
        parsedBodies.set(event, { error: new ParseError(cause?.message ?? 'Invalid JSON.') });
      }
    },
  };
}

/** The parsed JSON body (`{}` when the request has none); throws the body's 400/413/415 if it had one. */
export function requestBody(event: HttpEvent): unknown {
  const parsed = parsedBodies.get(event);
  if (!parsed) return {};
  if ('error' in parsed) throw parsed.error;
  return parsed.body;
}

/** A string field of the JSON body, if the body is a JSON object that has one; never throws. */
export function bodyField(event: HttpEvent, name: string): string | undefined {
  const parsed = parsedBodies.get(event);
  if (!parsed || !('body' in parsed)) return undefined;
  const body = parsed.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : undefined;
}
