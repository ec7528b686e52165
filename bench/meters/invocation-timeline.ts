import { readlinkSync } from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import type { HandlerWrapper } from '../../bin/local/function-host';
import type { InvocationSpan } from './metered';
import { invocationChannel } from './metered';

/**
 * Loaded into every local function container (`functionPreload`) by bench/pipeline.ts with
 * `BENCH_TIMELINE=1`: broadcasts each invocation's start and end and the container's thread id
 * (from /proc/thread-self), so the bench can tell the consumer's and capture's threads apart from the
 * emulators' and see how many batches were in flight when.
 */
const channel = new BroadcastChannel(invocationChannel);
channel.unref();

/** This thread's id in /proc (`<pid>/task/<tid>`), or 0 where there is no /proc. */
function threadId(): number {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return 0;
  }
}

const tid = threadId();

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
