import type { Context } from 'aws-lambda';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';

/** What a worker is started with (see function-worker.ts). */
export interface WorkerData {
  readonly modulePath: string;
  readonly preload: readonly string[];
  readonly functionName: string;
  readonly timeoutMs: number;
}

/** A function's handler, as a container calls it. */
export type LocalHandler = (event: unknown, context: Context) => Promise<unknown>;

/**
 * What a preload module may export as `wrapHandler`: the container then calls the wrapped handler
 * (benchmarks use it to inject faults into chosen invocations).
 */
export type HandlerWrapper = (handler: LocalHandler, functionName: string) => LocalHandler;

export interface Invocation {
  readonly id: number;
  readonly event: unknown;
}

export interface InvocationResult {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: { readonly name: string; readonly message: string; readonly stack?: string };
}

interface Pending {
  container: Container;
  resolve(result: unknown): void;
  reject(error: Error): void;
  /** Runs from when the container is ready: its cold start is not the invocation's time. */
  timer?: NodeJS.Timeout;
}

/** What a container posts once its handler module is loaded (its init phase is over). */
export const containerReady = 'container-ready';

/**
 * A worker loads its container's bundle (container-bundles.ts) as it is: plain CommonJS. Without
 * one, it runs TypeScript from sources: tsx's require hook, registered in the worker before the
 * entry loads (hooks do not carry over into worker threads), then function-worker.ts.
 */
const bootstrap = `
const { workerData } = require('node:worker_threads');
if (workerData.bundle) require(workerData.bundle);
else {
  require(workerData.tsx);
  require(workerData.entry);
}
`;

function toError(error: NonNullable<InvocationResult['error']>): Error {
  const result = new Error(error.message);
  result.name = error.name;
  if (error.stack) result.stack = error.stack;
  return result;
}

interface Container {
  readonly worker: Worker;
  inFlight: number;
  /** Whether its handler module has loaded; invocations' timers start then. */
  ready: boolean;
}

export interface LocalFunctionOptions {
  readonly functionName: string;
  /** The handler module (`functions/<name>/handler.ts`). */
  readonly modulePath: string;
  /**
   * The container's prebuilt bundle (container-bundles.ts: the container's runtime, `preload` and
   * the handler module in one CommonJS file), which a container loads in place of compiling
   * `modulePath` and `preload` from TypeScript: several times less CPU per cold start.
   */
  readonly bundle?: string;
  readonly timeoutMs: number;
  /**
   * Containers started at most; an invocation goes to the least busy one, and a new one starts only
   * while every container is busy. One container still serves concurrent invocations, as a
   * Node.js event loop can. @default 1
   */
  readonly maxContainers?: number;
  /**
   * Modules each container loads before the handler, as `NODE_OPTIONS=--require` would in Lambda;
   * one exporting `wrapHandler` (HandlerWrapper) wraps the handler. Benchmarks use them to meter the
   * functions' SDK clients and to inject faults.
   */
  readonly preload?: readonly string[];
  /**
   * Receives each EMF metrics line the function writes (on Lambda, CloudWatch reads them from its
   * log). They never reach this process's stdout; the function's other output does.
   */
  readonly onMetrics?: (blob: Record<string, unknown>) => void;
}

/** Whether a line of output is an EMF metrics blob (Powertools Metrics writes one line per flush). */
const isEmf = (line: string): boolean => line.startsWith('{"_aws"');

/**
 * One function of the stack, run locally the way Lambda runs it: in containers (worker threads,
 * each with its own module state and event loop) started on demand (cold starts), failing an
 * invocation that outlives the function's timeout and ending its container (other invocations it
 * was interleaving fail too), and replacing a container that crashes. As on Lambda, the timeout
 * counts from when the container has loaded its handler (Lambda's init phase is not part of the
 * function's timeout); from sources, that load also compiles TypeScript, which a loaded machine makes slow.
 * Separate threads also let the API, the consumer and the emulators use more than one core.
 */
export class LocalFunction {
  private readonly containers: Container[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(private readonly options: LocalFunctionOptions) {}

  invoke<TResult>(event: unknown): Promise<TResult> {
    const container = this.pick();
    const id = this.nextId++;
    container.inFlight++;
    return new Promise<TResult>((resolve, reject) => {
      const pending: Pending = { container, resolve, reject };
      this.pending.set(id, pending);
      if (container.ready) this.startTimer(id, pending);
      container.worker.postMessage({ id, event } satisfies Invocation);
    });
  }

  private startTimer(id: number, pending: Pending): void {
    pending.timer = setTimeout(() => {
      this.settle(id, { id, error: { name: 'TimeoutError', message: this.timeoutMessage() } });
      // Lambda resets the sandbox after a timeout: whatever ran on is stopped, not left to stall
      // the invocations that come next.
      this.discard(pending.container);
    }, this.options.timeoutMs);
  }

  /** Ends every container; invocations still running fail. */
  async stop(): Promise<void> {
    const containers = this.containers.splice(0);
    await Promise.all(containers.map((container) => container.worker.terminate()));
  }

  private timeoutMessage(): string {
    return `${this.options.functionName}: task timed out after ${this.options.timeoutMs / 1000} seconds`;
  }

  private pick(): Container {
    let best: Container | undefined;
    for (const container of this.containers)
      if (!best || container.inFlight < best.inFlight) best = container;
    if (best && (best.inFlight === 0 || this.containers.length >= (this.options.maxContainers ?? 1)))
      return best;
    const container: Container = { worker: this.start(), inFlight: 0, ready: false };
    this.containers.push(container);
    return container;
  }

  /** Takes a container out of service and ends it; its exit fails what it still had in flight. */
  private discard(container: Container): void {
    const index = this.containers.indexOf(container);
    if (index >= 0) this.containers.splice(index, 1);
    void container.worker.terminate();
  }

  private settle(id: number, message: InvocationResult): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    clearTimeout(pending.timer);
    pending.container.inFlight--;
    if (message.error) pending.reject(toError(message.error));
    else pending.resolve(message.result);
  }

  private start(): Worker {
    const worker = new Worker(bootstrap, {
      eval: true,
      // The container's stdout comes to us line by line: metrics are taken out, the rest printed.
      stdout: true,
      workerData: {
        bundle: this.options.bundle,
        tsx: require.resolve('tsx/cjs'),
        entry: join(__dirname, 'function-worker.ts'),
        modulePath: this.options.modulePath,
        preload: this.options.preload ?? [],
        functionName: this.options.functionName,
        timeoutMs: this.options.timeoutMs,
      } satisfies WorkerData & { bundle?: string; tsx: string; entry: string },
    });
    worker.on('message', (message: InvocationResult | typeof containerReady) => {
      if (message !== containerReady) return this.settle(message.id, message);
      const container = this.containers.find((candidate) => candidate.worker === worker);
      if (!container) return;
      container.ready = true;
      for (const [id, pending] of this.pending)
        if (pending.container === container && !pending.timer) this.startTimer(id, pending);
    });
    createInterface({ input: worker.stdout, crlfDelay: Infinity }).on('line', (line) => {
      if (!isEmf(line)) process.stdout.write(`${line}\n`);
      else if (this.options.onMetrics) this.options.onMetrics(JSON.parse(line) as Record<string, unknown>);
    });
    const fail = (error: Error): void => {
      const index = this.containers.findIndex((container) => container.worker === worker);
      if (index >= 0) this.containers.splice(index, 1);
      for (const [id, pending] of this.pending)
        if (pending.container.worker === worker)
          this.settle(id, { id, error: { name: error.name, message: error.message, stack: error.stack } });
    };
    worker.on('error', fail);
    worker.on('exit', (code) =>
      fail(new Error(`${this.options.functionName}: container exited with code ${code}`)),
    );
    return worker;
  }
}
