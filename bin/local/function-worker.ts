import './quiet-sdk';
import { workerData } from 'node:worker_threads';
import { serveInvocations } from './container-runtime';
import type { HandlerModule, PreloadModule } from './container-runtime';
import type { WorkerData } from './function-host';

/**
 * One local "Lambda container" run from sources: a worker thread that loads one function's handler
 * module (TypeScript, through tsx) after its preloads, then serves the invocations its host posts.
 * Its own module state (caches, SDK clients), its own event loop. The local server's containers load
 * a prebuilt bundle of the same instead (container-bundles.ts).
 */
const { modulePath, preload } = workerData as WorkerData;
// require(): the worker registers tsx for CommonJS only (see function-host.ts), not for import().
/* eslint-disable @typescript-eslint/no-require-imports */
const preloads = preload.map((module) => require(module) as PreloadModule);
serveInvocations(preloads, require(modulePath) as HandlerModule);
/* eslint-enable @typescript-eslint/no-require-imports */
