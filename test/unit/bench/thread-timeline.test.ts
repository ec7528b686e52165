import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { ThreadTimeline } from '../../../bench/support/thread-timeline';
import { invocationChannel } from '../../../bench/meters/metered';

/**
 * A "container": a worker thread that spins for `ms` and then posts its span, as
 * bench/meters/invocation-timeline.ts does after each invocation.
 */
const container = (functionName: string, ms: number): Worker =>
  new Worker(
    `
const { readlinkSync } = require('node:fs');
const { BroadcastChannel } = require('node:worker_threads');
const started = performance.timeOrigin + performance.now();
while (performance.now() - (started - performance.timeOrigin) < ${ms}) {}
const channel = new BroadcastChannel(${JSON.stringify(invocationChannel)});
channel.postMessage({
  functionName: ${JSON.stringify(functionName)},
  tid: Number(readlinkSync('/proc/thread-self').split('/').pop()),
  started,
  ended: performance.timeOrigin + performance.now(),
  records: 3,
});
channel.close();
`,
    { eval: true },
  );

const linux = process.platform === 'linux' ? describe : describe.skip;

linux('ThreadTimeline', () => {
  it("puts a container's CPU under its function once an invocation names its thread, and counts the batches in flight", async () => {
    // Prepare
    let stored = 0;
    const timeline = new ThreadTimeline(() => stored, 50);
    timeline.start();

    // Act: a consumer invocation spinning 300 ms, then capture's answers and stored events.
    const worker = container('flock-consumer', 300);
    await once(worker, 'exit');
    timeline.countPosted(100);
    stored = 100;
    await timeline.stop();
    const { rows, totals } = timeline.report();

    // Assess
    expect(totals['timeline: consumer CPU % of a core']).toBeGreaterThan(0);
    expect(totals['timeline: capture CPU % of a core']).toBe(0);
    expect(totals['timeline: consumer batches']).toBe(1);
    expect(totals['timeline: mean records a batch']).toBe(3);
    expect(totals['timeline: share of time with n batches in flight']).toMatch(/1: [1-9]\d*%/);
    expect(rows.at(-1)).toMatch(/^\s+\d+\s+100\s+100\s/);
  });

  it('leaves a thread no invocation named among the others', async () => {
    // Prepare
    const timeline = new ThreadTimeline(() => 0, 50);
    timeline.start();

    // Act: a worker that never posts a consumer's or capture's span.
    const worker = container('flock-events', 200);
    await once(worker, 'exit');
    await timeline.stop();
    const { totals } = timeline.report();

    // Assess
    expect(totals['timeline: consumer CPU % of a core']).toBe(0);
    expect(totals['timeline: consumer batches']).toBe(0);
    expect(totals['timeline: other CPU % of a core']).toBeGreaterThan(0);
  });
});
