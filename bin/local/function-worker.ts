import './quiet-sdk';
import { parentPort, workerData } from 'node:worker_threads';
import { lambdaContext } from './api-gateway';
import { containerReady } from './function-host';
import type { HandlerWrapper, Invocation, InvocationResult, LocalHandler, WorkerData } from './function-host';

/**
 * One local "Lambda container": a worker thread that loads one function's handler module and runs
 * the invocations its host posts. Its own module state (caches, SDK clients), its own event loop.
 */
const { modulePath, preload, functionName, timeoutMs } = workerData as WorkerData;
// require(): the worker registers tsx for CommonJS only (see function-host.ts), not for import().
/* eslint-disable @typescript-eslint/no-require-imports */
const wrappers = preload.map((module) => (require(module) as { wrapHandler?: HandlerWrapper }).wrapHandler);
const loaded = (require(modulePath) as { handler: LocalHandler }).handler;
/* eslint-enable @typescript-eslint/no-require-imports */
const handler = wrappers.reduce<LocalHandler>(
  (inner, wrap) => (wrap ? wrap(inner, functionName) : inner),
  loaded,
);

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

// The handler is loaded: the host starts each invocation's timeout from here on.
parentPort!.postMessage(containerReady);
