import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { logger } from './logger';
import { metrics } from './metrics';

/**
 * What every function does around an invocation, with Powertools' middlewares: each log line carries
 * Lambda's context (`function_request_id`, `function_name`, `cold_start`, ...) and, given
 * `correlationIdPath`, the caller's id as `correlation_id`; the keys appended during the invocation
 * are dropped when it ends (`resetKeys`: Lambda runs one invocation per sandbox at a time, so
 * module-level keys are per invocation), and its metrics are flushed, one EMF line (`logMetrics`).
 */
export function invocationMiddlewares<E, R>(correlationIdPath?: string): MiddlewareObj<E, R>[] {
  return [injectLambdaContext(logger, { resetKeys: true, correlationIdPath }), logMetrics(metrics)];
}

/** The Lambda handler of a queue or schedule function: `run` inside `invocationMiddlewares`. */
export function invocationHandler<E, R>(run: (event: E, context: Context) => Promise<R>) {
  return middy<E, R>().use(invocationMiddlewares<E, R>()).handler(run);
}
