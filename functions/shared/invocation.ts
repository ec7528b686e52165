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

/**
 * The Lambda handler of a queue or schedule function: `run` inside `invocationMiddlewares`.
 *
 * Without middy's early timeout (`timeoutEarlyInMillis: 0`; middy's default answers a TimeoutError
 * 5 ms before Lambda's deadline). `run` does not stop on that answer: the consumer would go on
 * writing a batch that the event source already counts as failed and delivers again, so the retry
 * overlaps the first run and a slow batch turns into several. Lambda's own timeout ends the sandbox
 * instead, stopping the work with it. In bench/fuzz the early answer cost one consumer invocation its
 * 30 s timeout in each of two runs; without it, none.
 */
export function invocationHandler<E, R>(run: (event: E, context: Context) => Promise<R>) {
  return middy<E, R>({ timeoutEarlyInMillis: 0 }).use(invocationMiddlewares<E, R>()).handler(run);
}
