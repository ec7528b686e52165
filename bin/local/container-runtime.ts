import { parentPort, workerData } from 'node:worker_threads';
import { lambdaContext } from './api-gateway';
import { containerReady } from './function-host';
import type { HandlerWrapper, Invocation, InvocationResult, LocalHandler, WorkerData } from './function-host';

/** A loaded preload module: one exporting `wrapHandler` wraps the handler. */
export interface PreloadModule {
  readonly wrapHandler?: HandlerWrapper;
}

/** A loaded handler module (`functions/<name>/handler.ts`). */
export interface HandlerModule {
  readonly handler: LocalHandler;
}

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

/**
 * The container's side of the host's protocol, once its preloads and handler module are loaded (its
 * init phase is over): wraps the handler in each preload's `wrapHandler`, runs the invocations the
 * host posts and tells the host it is ready (each invocation's timeout counts from then on).
 */
export function serveInvocations(preloads: readonly PreloadModule[], module: HandlerModule): void {
  const { functionName, timeoutMs } = workerData as WorkerData;
  const handler = preloads.reduce<LocalHandler>(
    (inner, { wrapHandler }) => (wrapHandler ? wrapHandler(inner, functionName) : inner),
    module.handler,
  );
  parentPort!.on('message', ({ id, event }: Invocation) => {
    Promise.resolve()
      .then(() => handler(event, lambdaContext(functionName, timeoutMs)))
      .then(
        (result) => reply({ id, result }),
        (error: unknown) => reply({ id, error: serializeError(error) }),
      );
  });
  parentPort!.postMessage(containerReady);
}
