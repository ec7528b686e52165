import { readdirSync, readFileSync } from 'node:fs';
import { BroadcastChannel } from 'node:worker_threads';
import type { InvocationSpan } from '../meters/metered';
import { invocationChannel } from '../meters/metered';

/** The threads a row tells apart: the main thread runs the API gateway, dynalite, fauxqs and the poller. */
const groups = ['main', 'consumer', 'capture', 'other'] as const;
type Group = (typeof groups)[number];

interface ThreadTimes {
  /** Nanoseconds on a CPU and waiting for one (/proc/<pid>/task/<tid>/schedstat). */
  readonly runNs: number;
  readonly waitNs: number;
}

interface Row {
  readonly at: number;
  /** Each thread's CPU and run-queue wait over the interval, in ms (grouped when reported: a container's thread id is known from its first invocation's end). */
  readonly threads: Map<number, { readonly cpuMs: number; readonly waitMs: number }>;
  readonly posted: number;
  readonly stored: number;
}

const zero = (): Record<Group, number> => ({ main: 0, consumer: 0, capture: 0, other: 0 });

function threadTimes(): Map<number, ThreadTimes> {
  const times = new Map<number, ThreadTimes>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const [run, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ');
      times.set(Number(tid), { runNs: Number(run), waitNs: Number(wait) });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return times;
}

const percent = (ms: number, of: number): string => `${Math.round((100 * ms) / of)}`.padStart(4);

/**
 * Where the pipeline's cores sat idle (`BENCH_TIMELINE=1`, docs/consumer.md): every `intervalMs`,
 * each thread's CPU time and run-queue wait from /proc (Linux with schedstats), grouped into the main
 * thread, the consumer's containers, capture's containers and the rest (the garbage collector's
 * helpers, libuv's pool); the containers are known by the thread ids meters/invocation-timeline.ts
 * broadcasts with each invocation, as are the consumer's batches in flight. The wait is time a thread
 * could have run but found no free core: on a loaded machine, CPU plus wait is what it asked for.
 */
export class ThreadTimeline {
  private readonly channel = new BroadcastChannel(invocationChannel);
  private readonly tids = new Map<number, Group>();
  private readonly spans: InvocationSpan[] = [];
  private readonly rows: Row[] = [];
  private previous = threadTimes();
  private started = Date.now();
  private timer?: NodeJS.Timeout;
  private posted = 0;

  constructor(
    private readonly storedCount: () => number,
    private readonly intervalMs = 1000,
  ) {
    this.channel.onmessage = (message) => {
      const span = (message as { data: InvocationSpan }).data;
      const group = span.functionName === 'flock-consumer' ? 'consumer' : 'capture';
      if (span.functionName === 'flock-consumer' || span.functionName === 'flock-capture')
        this.tids.set(span.tid, group);
      if (span.functionName === 'flock-consumer') this.spans.push(span);
    };
  }

  /** Starts the rows now (the timed phase), forgetting the invocations before it. */
  start(): void {
    this.spans.length = 0;
    this.rows.length = 0;
    this.posted = 0;
    this.previous = threadTimes();
    this.started = Date.now();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  /** Events the bench's requests delivered to capture so far. */
  countPosted(events: number): void {
    this.posted += events;
  }

  /** Ends the rows; the last invocation's span, posted as its batch ends, is waited for a moment. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.sample();
    await new Promise((resolve) => setTimeout(resolve, 500));
    this.channel.close();
  }

  private sample(): void {
    const now = threadTimes();
    const threads: Row['threads'] = new Map();
    for (const [tid, times] of now) {
      const before = this.previous.get(tid) ?? { runNs: 0, waitNs: 0 };
      threads.set(tid, {
        cpuMs: (times.runNs - before.runNs) / 1e6,
        waitMs: (times.waitNs - before.waitNs) / 1e6,
      });
    }
    this.previous = now;
    this.rows.push({ at: Date.now(), threads, posted: this.posted, stored: this.storedCount() });
  }

  private grouped(row: Row): {
    readonly cpuMs: Record<Group, number>;
    readonly waitMs: Record<Group, number>;
  } {
    const cpuMs = zero();
    const waitMs = zero();
    for (const [tid, times] of row.threads) {
      const group = tid === process.pid ? 'main' : (this.tids.get(tid) ?? 'other');
      cpuMs[group] += times.cpuMs;
      waitMs[group] += times.waitMs;
    }
    return { cpuMs, waitMs };
  }

  /** Consumer batches in flight at `at` (epoch ms). */
  private inFlight(at: number): number {
    return this.spans.filter((span) => span.started <= at && at < span.ended).length;
  }

  /** The rows (one per interval: CPU % of one core by group, batches in flight) and the run's totals. */
  report(): { readonly rows: string[]; readonly totals: Record<string, number | string> } {
    const lines = [
      '    s  posted  stored  batches  main cons capt othr  (CPU % of a core; +wait for a core)',
    ];
    let previousAt = this.started;
    const cpu = zero();
    const wait = zero();
    for (const row of this.rows) {
      const span = row.at - previousAt;
      const { cpuMs, waitMs } = this.grouped(row);
      for (const group of groups) {
        cpu[group] += cpuMs[group];
        wait[group] += waitMs[group];
      }
      lines.push(
        [
          ((row.at - this.started) / 1000).toFixed(0).padStart(5),
          String(row.posted).padStart(7),
          String(row.stored).padStart(7),
          String(this.inFlight(row.at - span / 2)).padStart(8),
          ...groups.map((group) => percent(cpuMs[group], span)),
          ` +${groups.map((group) => percent(waitMs[group], span).trim()).join('/')}`,
        ].join(' '),
      );
      previousAt = row.at;
    }
    const wall = previousAt - this.started;
    const postedAt = this.rows.find((row) => row.posted === this.rows.at(-1)?.posted)?.at ?? previousAt;
    // Batches in flight, sampled every 10 ms over the run.
    const counts = new Map<number, number>();
    for (let at = this.started; at < previousAt; at += 10) {
      const n = this.inFlight(at);
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    const samples = Math.max(
      1,
      [...counts.values()].reduce((sum, n) => sum + n, 0),
    );
    const totalCpu = groups.reduce((sum, group) => sum + cpu[group], 0);
    const totalWait = groups.reduce((sum, group) => sum + wait[group], 0);
    return {
      rows: lines,
      totals: {
        'timeline: cores used (CPU / wall)': Number((totalCpu / wall).toFixed(2)),
        'timeline: cores asked for (CPU + run-queue wait) / wall': Number(
          ((totalCpu + totalWait) / wall).toFixed(2),
        ),
        ...Object.fromEntries(
          groups.map((group) => [
            `timeline: ${group} CPU % of a core`,
            Math.round((100 * cpu[group]) / wall),
          ]),
        ),
        'timeline: s until the last request was answered': Number(
          ((postedAt - this.started) / 1000).toFixed(1),
        ),
        'timeline: consumer batches': this.spans.length,
        'timeline: mean records a batch': Math.round(
          this.spans.reduce((sum, span) => sum + span.records, 0) / Math.max(1, this.spans.length),
        ),
        'timeline: share of time with n batches in flight': [...counts]
          .sort(([a], [b]) => a - b)
          .map(([n, count]) => `${n}: ${Math.round((100 * count) / samples)}%`)
          .join(', '),
      },
    };
  }
}
