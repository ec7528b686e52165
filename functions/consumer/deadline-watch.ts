import type { Context } from 'aws-lambda';
import { logger } from '../shared/logger';
import { stagesRunning } from './stages';

/** How long before Lambda's deadline the watch reports. */
export const deadlineReportMarginMs = 2_000;

/**
 * Reports, once, an invocation still running `deadlineReportMarginMs` before its deadline: an error
 * log line naming the stages running then and for how long, and the batch's size. Lambda's own
 * timeout line says only that the invocation timed out; this one says where it was. No line before
 * a timeout means the event loop was blocked (a stage computing, not waiting on a read or a write),
 * so the timer could not fire. Call the returned function when the invocation ends.
 */
export function watchDeadline(context: Context | undefined, records: number): () => void {
  // A context without a deadline (a direct call in a test or a script): nothing to watch.
  if (typeof context?.getRemainingTimeInMillis !== 'function') return () => undefined;
  const delay = context.getRemainingTimeInMillis() - deadlineReportMarginMs;
  if (delay <= 0) return () => undefined;
  const timer = setTimeout(() => {
    logger.error('Consumer invocation near its deadline', {
      remainingMs: context.getRemainingTimeInMillis(),
      records,
      stages: stagesRunning(),
    });
  }, delay);
  return () => clearTimeout(timer);
}
