import '../../bin/local/quiet-sdk';
// Meters this process's DynamoDB client (as in function containers) before the handler loads.
import '../meters/write-cost';
import type { SQSRecord } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import { BroadcastChannel } from 'node:worker_threads';
import { lambdaContext } from '../../bin/local/api-gateway';
import { handler } from '../../functions/consumer/handler';
import { FullBatchFailureError } from '../../functions/shared/queue/batch-failure';
import type { Metered } from '../meters/metered';
import { meterChannel } from '../meters/metered';

/**
 * The ingest consumer alone in a process of its own, as a Lambda container runs it, for benches that
 * measure the consumer rather than the pipeline (bench/plugins.ts): its RSS is the consumer's, not the
 * local server's. The parent forks it with `npm start`'s environment (tables, emulator endpoints) and
 * sends rounds of invocations; each round runs the real handler on its SQS batches one after another,
 * and answers its time, CPU, write units (meters/write-cost.ts) and the process's RSS.
 */

export interface Round {
  /** The SQS batches of the round, each one invocation. */
  readonly invocations: readonly (readonly SQSRecord[])[];
}

export interface RoundResult {
  readonly ms: number;
  readonly cpuMs: number;
  /** DynamoDB write units (table and GSI), by kind of item and in all. */
  readonly writeUnits: number;
  readonly byKind: Record<string, number>;
  readonly failedMessages: number;
  readonly rssMb: number;
}

/** The process's first message, once the handler module is loaded. */
export interface Ready {
  readonly rssMb: number;
}

const MB = 2 ** 20;
const rssMb = (): number => process.memoryUsage().rss / MB;

const metered = { units: 0, byKind: {} as Record<string, number>, lastAt: 0 };
const channel = new BroadcastChannel(meterChannel);
channel.onmessage = (message: unknown) => {
  const { tableUnits, gsiUnits, byKind } = (message as { data: Metered }).data;
  metered.units += tableUnits + gsiUnits;
  for (const [kind, n] of Object.entries(byKind)) metered.byKind[kind] = (metered.byKind[kind] ?? 0) + n;
  metered.lastAt = performance.now();
};
channel.unref();

const send = (message: RoundResult | Ready): void => {
  process.send!(message);
};

/** How many of the invocation's messages failed: all of them when the handler throws FullBatchFailureError. */
async function failedMessagesOf(records: readonly SQSRecord[]): Promise<number> {
  try {
    const context = lambdaContext('consumer', 60_000);
    return (await handler({ Records: [...records] }, context)).batchItemFailures.length;
  } catch (error) {
    if (error instanceof FullBatchFailureError) return records.length;
    throw error;
  }
}

async function run(round: Round): Promise<RoundResult> {
  const units = metered.units;
  const byKind = { ...metered.byKind };
  let failedMessages = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (const records of round.invocations) {
    failedMessages += await failedMessagesOf(records);
  }
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  // The meter's last messages are delivered on later turns of the event loop.
  while (performance.now() - metered.lastAt < 100) await sleep(20);
  return {
    ms,
    cpuMs: (user + system) / 1000,
    writeUnits: metered.units - units,
    byKind: Object.fromEntries(
      Object.entries(metered.byKind).map(([kind, n]) => [kind, n - (byKind[kind] ?? 0)]),
    ),
    failedMessages,
    rssMb: rssMb(),
  };
}

process.on('message', (round: Round) => {
  run(round).then(send, (error: unknown) => {
    console.error(error);
    process.exit(1);
  });
});
// The parent went away: so does the consumer.
process.on('disconnect', () => process.exit(0));
send({ rssMb: rssMb() });
