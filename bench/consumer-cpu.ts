import '../bin/local/quiet-sdk';
import type { SQSRecord } from 'aws-lambda';
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { environmentWith, environmentValue } from '../bin/environment';
import { lambdaContext } from '../bin/local/api-gateway';
import { toRecord } from '../bin/local/poller';
import type { CaptureMessage } from '../functions/shared/queue/message';
import { packMessages } from '../functions/shared/queue/pack';
import { documentClient, lowLevelClient } from '../functions/shared/db/client';
import { sqsClient } from '../functions/shared/queue/client';
import { benchSetting, report, round, sampleEvent } from './lib';
import { startBenchFlock } from './support/local-flock';

/**
 * The ingest consumer's own CPU time per event on bench/pipeline's events (docs/consumer.md, "Where
 * the consumer's time goes"): what the pipeline's consumer containers spend beside the emulators.
 *
 * The consumer runs alone in a child process (this file, `--child`: the real handler, no meters),
 * against a local server's emulators in this process, fed the SQS batches the pipeline's consumer
 * gets: /batch/ requests of 100 of bench/lib's events (10 users, 8 names) packed by capture's own
 * `packMessages`, `BENCH_MESSAGES` (40) of them an invocation, invocations one after another as one
 * Lambda container runs them. One warm-up invocation (cold start, persons and definitions created),
 * then `BENCH_INVOCATIONS`. The child's CPU time (user and system, `process.cpuUsage`) hardly moves
 * with the machine's load, where wall time does: compare builds by it on a shared machine.
 *
 * `BENCH_CPU_PROF=<dir>` profiles the child (`--cpu-prof`), for bench/support/top-frames.ts.
 * `BENCH_ALLOC_PROF=<file>` writes what the child allocated (V8's sampling heap profiler, objects
 * the garbage collector took since kept in it: the allocations, not what is left) as a
 * `.heapprofile`, for Chrome DevTools' Memory tab.
 */
const invocations = benchSetting('BENCH_INVOCATIONS', 10, 2);
const messagesPerInvocation = benchSetting('BENCH_MESSAGES', 40, 20);
const eventsPerMessage = 100;
const queueArn = 'arn:aws:sqs:us-east-1:000000000000:flock-ingest';

interface Measured {
  readonly cpuMs: number;
  readonly ms: number;
  readonly failed: number;
  /** Requests the invocation sent, by command (`BatchWriteItemCommand`…). */
  readonly requests: Record<string, number>;
}

/** An invocation's records, each one request of the pipeline's as capture queues it. */
function invocationOf(projectId: number, n: number): SQSRecord[] {
  return Array.from({ length: messagesPerInvocation }, (_, m) => {
    const first = (n * messagesPerInvocation + m) * eventsPerMessage;
    const now = new Date().toISOString();
    const envelope: Omit<CaptureMessage, 'events'> = {
      v: 1,
      project_id: projectId,
      now,
      sent_at: null,
      ip: '127.0.0.1',
      site_url: null,
    };
    const events = Array.from({ length: eventsPerMessage }, (_, i) => {
      const data = sampleEvent(first + i);
      return { uuid: String(data.uuid), distinct_id: String(data.distinct_id), data };
    });
    const { bodies } = packMessages(envelope, events);
    if (bodies.length !== 1) throw new Error(`a request packed into ${bodies.length} messages`);
    return toRecord({ MessageId: randomUUID(), ReceiptHandle: 'bench', Body: bodies[0] }, queueArn);
  });
}

/** Samples every allocation of this process from now on; the profile is written to `file` on exit. */
function profileAllocations(file: string): void {
  const session = new Session();
  session.connect();
  session.post('HeapProfiler.startSampling', {
    samplingInterval: 32_768,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  process.on('exit', () =>
    // The in-process session answers synchronously, within the exit handler.
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (!error) writeFileSync(file, JSON.stringify(result.profile));
    }),
  );
}

/** The child: runs each invocation it is sent through the real handler, and answers its cost. */
async function child(): Promise<void> {
  const allocationProfile = environmentValue('BENCH_ALLOC_PROF');
  if (allocationProfile) profileAllocations(allocationProfile);
  const { handler } = await import('../functions/consumer/handler');
  let requests: Record<string, number> = {};
  const count = (command = '?'): void => {
    requests[command] = (requests[command] ?? 0) + 1;
  };
  const options = { step: 'initialize', name: 'benchRequestCount' } as const;
  documentClient.middlewareStack.add(
    (next, context) => (args) => (count(context.commandName), next(args)),
    options,
  );
  lowLevelClient.middlewareStack.add(
    (next, context) => (args) => (count(context.commandName), next(args)),
    options,
  );
  sqsClient.middlewareStack.add(
    (next, context) => (args) => (count(context.commandName), next(args)),
    options,
  );
  process.on('message', (records: SQSRecord[]) => {
    requests = {};
    const cpu = process.cpuUsage();
    const started = performance.now();
    handler({ Records: records }, lambdaContext('consumer', 60_000)).then(
      (response) => {
        const { user, system } = process.cpuUsage(cpu);
        const measured: Measured = {
          cpuMs: (user + system) / 1000,
          ms: performance.now() - started,
          failed: response.batchItemFailures.length,
          requests,
        };
        process.send!(measured);
      },
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
  process.on('disconnect', () => process.exit(0));
  process.send!('ready');
}

async function main(): Promise<void> {
  const bench = await startBenchFlock({ lakeIntervalMs: 0, lakeCompactIntervalMs: 0 });
  const profileDir = environmentValue('BENCH_CPU_PROF');
  const consumer = fork(__filename, ['--child'], {
    execArgv: ['--import', 'tsx', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
    // Metrics stay on (the pipeline's consumer writes them too); their EMF lines are not shown.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: environmentWith({}),
  });
  const next = async <T>(): Promise<T> => ((await once(consumer, 'message')) as [T])[0];
  await next<string>();
  const { projectId } = bench.flock.credentials;
  const run = async (n: number): Promise<Measured> => {
    consumer.send(invocationOf(projectId, n));
    return next<Measured>();
  };
  await run(0);
  let cpuMs = 0;
  let ms = 0;
  let failed = 0;
  const requests: Record<string, number> = {};
  for (let n = 1; n <= invocations; n++) {
    const measured = await run(n);
    cpuMs += measured.cpuMs;
    ms += measured.ms;
    failed += measured.failed;
    for (const [command, count] of Object.entries(measured.requests))
      requests[command] = (requests[command] ?? 0) + count;
  }
  consumer.disconnect();
  await once(consumer, 'exit');
  await bench.stop();
  if (failed > 0) throw new Error(`${failed} messages failed`);
  const events = invocations * messagesPerInvocation * eventsPerMessage;
  const cpuPerEvent = round(cpuMs / events, 4);
  report(
    "consumer CPU per event (the pipeline's batches, consumer alone in a process)",
    {
      events,
      'invocations (after 1 warm-up)': invocations,
      'messages per invocation': messagesPerInvocation,
      'consumer CPU ms/event': cpuPerEvent,
      'consumer wall ms/event': round(ms / events, 4),
      ...Object.fromEntries(
        Object.entries(requests)
          .sort(([, a], [, b]) => b - a)
          .map(([command, count]) => [`${command} per event`, round(count / events, 4)]),
      ),
    },
    'none (compare builds)',
    { figure: `${cpuPerEvent} ms/event`, met: true },
  );
}

(process.argv.includes('--child') ? child() : main()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
