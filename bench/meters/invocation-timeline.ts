import { BroadcastChannel } from 'node:worker_threads';
import type { HandlerWrapper } from '../../bin/local/function-host';
import type { InvocationSpan } from './metered';
import { invocationChannel, threadIdOfThisThread } from './metered';

/**
 * Loaded into every local function container (`functionPreload`) by bench/pipeline.ts with
 * `BENCH_TIMELINE=1`: broadcasts each invocation's start and end and the container's thread id
 * (from /proc/thread-self), so the bench can tell the consumer's and capture's threads apart from the
 * emulators' and see how many batches were in flight when.
 */
const channel = new BroadcastChannel(invocationChannel);
channel.unref();

const tid = threadIdOfThisThread();

export const wrapHandler: HandlerWrapper = (handler, functionName) => async (event, context) => {
  const started = performance.timeOrigin + performance.now();
  try {
    return await handler(event, context);
  } finally {
    const span: InvocationSpan = {
      functionName,
      tid,
      started,
      ended: performance.timeOrigin + performance.now(),
      records: (event as { Records?: unknown[] }).Records?.length ?? 0,
    };
    channel.postMessage(span);
  }
};
