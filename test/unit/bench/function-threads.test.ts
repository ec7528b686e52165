import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { cpuSpent, FunctionThreads } from '../../../bench/support/function-threads';
import { invocationChannel } from '../../../bench/meters/metered';

/**
 * A "container": a worker thread that spins until it has run `ms` of CPU, posts its span as
 * bench/meters/invocation-timeline.ts does after each invocation, and stays alive until told to end.
 */
const container = (functionName: string, ms: number): Worker =>
  new Worker(
    `
const { readFileSync, readlinkSync } = require('node:fs');
const { BroadcastChannel, parentPort } = require('node:worker_threads');
const cpuMs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
while (cpuMs() < ${ms}) {}
const channel = new BroadcastChannel(${JSON.stringify(invocationChannel)});
channel.postMessage({
  functionName: ${JSON.stringify(functionName)},
  tid: Number(readlinkSync('/proc/thread-self').split('/').pop()),
  started: 0,
  ended: 0,
  records: 0,
});
channel.close();
parentPort.once('message', () => process.exit(0));
`,
    { eval: true },
  );

const linux = process.platform === 'linux' ? describe : describe.skip;

linux('FunctionThreads', () => {
  it("counts a container's CPU under its function once an invocation names its thread", async () => {
    // Prepare
    const functions = new FunctionThreads();
    const before = functions.cpuByFunction();

    // Act: an events container spinning 200 ms; no invocation of another function.
    const worker = container('flock-events', 200);
    let events: number | undefined;
    for (let i = 0; i < 100 && events === undefined; i++) {
      await sleep(20);
      events = functions.cpuMs('flock-events');
    }
    const spent = cpuSpent(before, functions.cpuByFunction());
    worker.postMessage('end');
    await once(worker, 'exit');
    functions.close();

    // Assess
    expect(events).toBeGreaterThanOrEqual(150);
    expect(functions.cpuMs('flock-consumer')).toBeUndefined();
    expect(spent.map(({ functionName }) => functionName)).toEqual(['flock-events']);
  });

  it('gives the CPU each function spent between two readings, the largest first', () => {
    const before = new Map([
      ['flock-events', 100],
      ['flock-lake', 50],
    ]);
    const after = new Map([
      ['flock-events', 130],
      ['flock-lake', 50],
      ['flock-consumer', 80],
    ]);

    expect(cpuSpent(before, after)).toEqual([
      { functionName: 'flock-consumer', ms: 80 },
      { functionName: 'flock-events', ms: 30 },
    ]);
  });
});
