import type { MiddlewareObj } from '@middy/core';
import { ZodError } from 'zod';
import { logger } from '../logger';
import { countMetric, metricNames } from '../metrics';
import { HttpError, internalErrorBody, validationErrorFromZod } from './errors';
import { header } from './request';
import { json } from './responses';
import type { HttpEvent, HttpResult } from './types';

type HttpMiddleware = MiddlewareObj<HttpEvent, HttpResult>;

/**
 * Turns every thrown error into the documented `{type, code, detail, attr}` response.
 * Anything that is not an HttpError is a bug: logged once with the request ids, answered with a
 * generic 500 whose body reveals nothing.
 */
export function errorResponder(): HttpMiddleware {
  return {
    onError: async (request) => {
      const { error } = request;
      if (error instanceof HttpError) {
        request.response = json(error.statusCode, error.toBody(), error.headers);
        return;
      }
      if (error instanceof ZodError) {
        const validation = validationErrorFromZod(error);
        request.response = json(validation.statusCode, validation.toBody());
        return;
      }
      // The line carries Lambda's and API Gateway's request ids (see invocation.ts).
      logger.error('Unhandled error', { error: error as Error });
      request.response = json(500, internalErrorBody);
    },
  };
}

/**
 * A count of the answers of 500 and above (errors included, once `errorResponder` answered them),
 * added to the invocation's metrics before `logMetrics` flushes them.
 */
export function serverErrorCount(): HttpMiddleware {
  const count = async (request: { response: HttpResult | null | undefined }): Promise<void> => {
    if ((request.response?.statusCode ?? 500) >= 500) countMetric(metricNames.httpServerErrors, 1);
  };
  return { after: count, onError: count };
}

/** Headers a browser may send that PostHog's capture allows (tracing headers, `posthog/utils.py` `cors_response`). */
const defaultAllowedHeaders = 'X-Requested-With,Content-Type';

/**
 * CORS for the public endpoints, on every response including errors: posthog-js runs on any origin,
 * sends no credentials (so none are allowed), and needs `Retry-After` exposed. Preflights are answered with
 * the headers the browser asked for.
 */
export function publicCors(): HttpMiddleware {
  const decorate = (event: HttpEvent, response: HttpResult | null | undefined): void => {
    if (!response) return;
    const origin = header(event, 'origin');
    const requested = header(event, 'access-control-request-headers');
    Object.assign(response.headers, {
      'Access-Control-Allow-Origin': origin ?? '*',
      'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
      'Access-Control-Allow-Headers': requested
        ? `${defaultAllowedHeaders},${requested}`
        : defaultAllowedHeaders,
      'Access-Control-Expose-Headers': 'Retry-After',
      'Access-Control-Max-Age': '86400',
      // No Access-Control-Allow-Credentials: the SDKs send no cookies or credentials, and the public
      // endpoints read none, so allowing them would only let a page read answers it should not.
      ...(origin ? { Vary: 'Origin' } : {}),
    });
  };
  return {
    after: async (request) => decorate(request.event, request.response),
    onError: async (request) => decorate(request.event, request.response),
  };
}
