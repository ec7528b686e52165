import { readFileSync } from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import type { InvocationSpan } from '../meters/metered';
import { invocationChannel } from '../meters/metered';

/**
 * The local functions' containers (their threads), known by function from their invocations' spans:
 * the server must load meters/invocation-timeline.ts into its containers (`functionPreload`). A
 * container is known from the end of its first invocation on.
 */
export class FunctionThreads {
  private readonly channel = new BroadcastChannel(invocationChannel);
  private readonly functions = new Map<number, string>();

  constructor() {
    this.channel.onmessage = (message) => {
      const span = (message as { data: InvocationSpan }).data;
      if (span.tid > 0) this.functions.set(span.tid, span.functionName);
    };
  }

  /** CPU milliseconds each function's known threads have run (/proc schedstat), by function name. */
  cpuByFunction(): Map<string, number> {
    const ms = new Map<string, number>();
    for (const [tid, functionName] of this.functions) {
      try {
        const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
        ms.set(functionName, (ms.get(functionName) ?? 0) + ns / 1e6);
      } catch {
        // The container ended.
      }
    }
    return ms;
  }

  /** CPU milliseconds one function's threads have run, undefined while none is known. */
  cpuMs(functionName: string): number | undefined {
    return this.cpuByFunction().get(functionName);
  }

  close(): void {
    this.channel.close();
  }
}

/** CPU milliseconds per function between two `cpuByFunction` readings, the largest first. */
export function cpuSpent(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>) {
  return [...after]
    .map(([functionName, ms]) => ({ functionName, ms: ms - (before.get(functionName) ?? 0) }))
    .filter(({ ms }) => ms > 0)
    .sort((a, b) => b.ms - a.ms);
}
