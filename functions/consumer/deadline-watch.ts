import type { Context } from 'aws-lambda';
import { logger } from '../shared/logger';
import { stagesRunning } from './stages';

/** How long before Lambda's deadline the watch reports. */
export const deadlineReportMarginMs = 2_000;

/**
 * The invocation's deadline (epoch ms), or undefined for a context without one (a direct call in a
 * test or a script), which leaves the consumer's bounded stages unbounded.
 */
export function invocationDeadline(context: Context | undefined): number | undefined {
  return typeof context?.getRemainingTimeInMillis === 'function'
    ? Date.now() + context.getRemainingTimeInMillis()
    : undefined;
}

/**
 * Reports, once, an invocation still running `deadlineReportMarginMs` before its deadline: an error
 * log line naming the stages running then and for how long, and the batch's size. Lambda's own
 * timeout line says only that the invocation timed out; this one says where it was. No line before
 * a timeout means the event loop was blocked (a stage computing, not waiting on a read or a write),
 * so the timer could not fire. Call the returned function when the invocation ends.
 */
export function watchDeadline(context: Context | undefined, records: number): () => void {
  const deadline = invocationDeadline(context);
  if (deadline === undefined) return () => undefined;
  const delay = deadline - Date.now() - deadlineReportMarginMs;
  if (delay <= 0) return () => undefined;
  const timer = setTimeout(() => {
    logger.error('Consumer invocation near its deadline', {
      remainingMs: deadline - Date.now(),
      records,
      stages: stagesRunning(),
    });
  }, delay);
  return () => clearTimeout(timer);
}
