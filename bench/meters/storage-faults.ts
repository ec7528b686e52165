import { AsyncLocalStorage } from 'node:async_hooks';
import { BroadcastChannel } from 'node:worker_threads';
import type { HandlerWrapper } from '../../bin/local/function-host';
import { documentClient, lowLevelClient } from '../../functions/shared/db/client';
import type { FaultReport } from './metered';
import { faultChannel, faultyBatchShare } from './metered';

/**
 * Loaded into every local function container (`functionPreload`) by bench/no-loss.ts: one consumer
 * batch in ten (`faultyBatchShare`, counted per container) meets failing storage, where each DynamoDB write of that batch
 * fails with even odds, so some of its writes land and others do not, as when a table throttles or
 * a container dies mid-batch. What SQS redelivers must then be stored once, not twice.
 */
const faulty = new AsyncLocalStorage<boolean>();
const channel = new BroadcastChannel(faultChannel);
channel.unref();

function post(report: FaultReport): void {
  channel.postMessage(report);
}

let batches = 0;
/** Every tenth batch of this container, starting with the fifth: exactly the share, every run. */
const failsNext = (): boolean => batches++ % Math.round(1 / faultyBatchShare) === 4;

export const wrapHandler: HandlerWrapper = (handler, functionName) =>
  functionName !== 'flock-consumer'
    ? handler
    : (event, context) => {
        const fails = failsNext();
        post({ batches: 1, faultyBatches: fails ? 1 : 0, failedWrites: 0 });
        return faulty.run(fails, () => handler(event, context));
      };

// Both clients: the consumer's event writes take the low-level one (db/client.ts).
for (const client of [documentClient, lowLevelClient])
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const writes = /Put|Update|Delete|BatchWrite/.test(context.commandName ?? '');
      if (writes && faulty.getStore() && Math.random() < 0.5) {
        post({ batches: 0, faultyBatches: 0, failedWrites: 1 });
        throw Object.assign(new Error('Injected storage failure'), { name: 'InternalServerError' });
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchStorageFaults' },
  );
