import './quiet-sdk';
import { parentPort, workerData } from 'node:worker_threads';
import { lambdaContext } from './api-gateway';
import type { Invocation, InvocationResult, WorkerData } from './function-host';

/**
 * One local "Lambda container": a worker thread that loads one function's handler module and runs
 * the invocations its host posts. Its own module state (caches, SDK clients), its own event loop.
 */
const { modulePath, preload, functionName, timeoutMs } = workerData as WorkerData;
// require(): the worker registers tsx for CommonJS only (see function-host.ts), not for import().
/* eslint-disable @typescript-eslint/no-require-imports */
for (const module of preload) require(module);
const { handler } = require(modulePath) as {
  handler: (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;
};
/* eslint-enable @typescript-eslint/no-require-imports */

function serializeError(error: unknown): InvocationResult['error'] {
  return error instanceof Error
    ? { name: error.name, message: error.message, stack: error.stack }
    : { name: 'Error', message: String(error) };
}

function reply(message: InvocationResult): void {
  try {
    parentPort!.postMessage(message);
  } catch (error) {
    // A result that cannot cross threads (a function, a class instance) fails the invocation.
    parentPort!.postMessage({ id: message.id, error: serializeError(error) } satisfies InvocationResult);
  }
}

parentPort!.on('message', ({ id, event }: Invocation) => {
  Promise.resolve()
    .then(() => handler(event, lambdaContext(functionName, timeoutMs)))
    .then(
      (result) => reply({ id, result }),
      (error: unknown) => reply({ id, error: serializeError(error) }),
    );
});
