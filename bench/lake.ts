import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compactLake } from '../functions/lake/compact';
import { lakeDatabase, parquetOf } from '../functions/lake/parquet';
import { lakeCompaction } from '../functions/shared/lake/compaction';
import { lakeDateOf, lakeFileKey, lakeProjectPrefix } from '../functions/shared/lake/layout';
import { lakeFilesToRead, lakeTimeName } from '../functions/shared/lake/listing';
import type { LakeEvent } from '../functions/shared/lake/row';
import { lakeRowOf, lakeRowsOf } from '../functions/shared/lake/row';
import { environmentValue } from '../bin/environment';
import { numberSetting } from '../functions/shared/config';
import { lakeFlush } from '../functions/shared/queue/definitions';
import { benchSetting, report, round, sampleEvent } from './lib';
import type { ConsumerRun } from './support/consumer-throughput';
import { consumerRun } from './support/consumer-throughput';
import { directoryLakeStore } from './support/directory-lake-store';
import { handOffPackingCpu } from './support/hand-off-cpu';

/**
 * The events lake: `events` events of the bench's mix (lib.ts `sampleEvent`) for one project, spread
 * evenly over 30 days and arriving in time order (one in 50 one to three days late) faster than a
 * flush's worth per schedule, written
 * by the lake writer's code (`lakeRowOf`, `parquetOf`, one file per date per flush of
 * `lakeFlush.flushEvents` events, as functions/lake/flush.ts does) into a directory standing for the
 * bucket, then compacted (functions/lake/compact.ts) and read back through the listing rule with
 * DuckDB (every event once). Figures:
 * - Parquet bytes per event after compaction (target ≤ 60);
 * - PUTs per million events before compaction (≤ 200): the files the flushes wrote;
 * - the writer's CPU per event (building the rows and writing the files) as a ratio to encoding the
 *   same rows once with DuckDB (appender and COPY of the already-built rows, one file per flush;
 *   ≤ 2);
 * - files per project-day after compaction (≤ 4);
 * - the consumer's throughput with the lake hand-off on vs off (≥ 0.9): the same HTTP `/batch/` load
 *   through a fresh local server each time (bench/support/consumer-throughput.ts), on, off, off, on,
 *   so that a machine getting busier or quieter during the bench weighs on both alike.
 *   `BENCH_LAKE_PART=consumer` runs this figure alone, in `BENCH_LAKE_ROUNDS` rounds (`consumerOnly`).
 * Claims and the queue (a conditional write per event, a receive and delete per 10 messages) are
 * left out: they cost requests, not Parquet, and bench/write-cost counts them.
 */

const events = benchSetting('BENCH_LAKE_EVENTS', 1_000_000, 50_000);
const flushEvents = benchSetting('BENCH_LAKE_FLUSH_EVENTS', lakeFlush.flushEvents, 4_000);
const consumerRequests = benchSetting('BENCH_LAKE_REQUESTS', 300, 20);
const days = 30;
const projectId = 1;
const start = Date.parse('2026-01-01T00:00:00Z');
const spacingMs = (days * 86_400_000) / events;
/** The job's settings; merged files go at once (no reader to wait for). */
const settings = {
  settleMs: lakeCompaction.settleSeconds * 1000,
  graceMs: 0,
  targetBytes: lakeCompaction.targetBytes,
  largeBytes: lakeCompaction.largeBytes,
};

/** One event in `lateEvery` arrives one to three days late (an SDK's offline queue). */
const lateEvery = 50;

/**
 * The i-th event as the consumer hands it over: the bench's mix, its time spread over the days, a few
 * of them late (in an earlier date's partition than the flush's other events).
 */
function lakeEventOf(i: number): LakeEvent {
  const sample = sampleEvent(i, 1000);
  const lateBy = i % lateEvery === 0 ? (1 + (i % 3)) * 86_400_000 : 0;
  const timestamp = new Date(Math.max(start, start + Math.floor(i * spacingMs) - lateBy)).toISOString();
  return {
    uuid: sample.uuid as string,
    event: sample.event as string,
    distinct_id: sample.distinct_id as string,
    timestamp,
    created_at: timestamp,
    properties: sample.properties as Record<string, unknown>,
    elements_chain: '',
  };
}

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The consumer's throughput with the hand-off on, as a share of it off: at least this. */
const consumerTarget = 0.9;

const mean = (list: readonly number[]): number => list.reduce((sum, value) => sum + value, 0) / list.length;

/**
 * The consumer's throughput with the lake hand-off on and off, in `rounds` rounds of four fresh local
 * servers (on, off, off, on): a ratio per round (its two "on" runs' mean rate over its two "off"
 * runs'), and the ratio of all the runs' means.
 */
async function consumerFigures(
  rounds: number,
): Promise<{ ratio: number; figures: Record<string, number | string> }> {
  const runs: Record<'on' | 'off', ConsumerRun[]> = { on: [], off: [] };
  const ratios: number[] = [];
  for (let pass = 0; pass < rounds; pass++) {
    const these: Record<'on' | 'off', ConsumerRun[]> = { on: [], off: [] };
    for (const handOff of [true, false, false, true])
      these[handOff ? 'on' : 'off'].push(await consumerRun(handOff, consumerRequests));
    if (these.on.some((run) => run.lakeMessages === 0) || these.off.some((run) => run.lakeMessages > 0))
      throw new Error('the lake hand-off was not on and off as asked');
    const rate = (list: readonly ConsumerRun[]): number => mean(list.map((run) => run.eventsPerSecond));
    ratios.push(rate(these.on) / rate(these.off));
    runs.on.push(...these.on);
    runs.off.push(...these.off);
  }
  const rates = (list: readonly ConsumerRun[]): string =>
    list.map((run) => round(run.eventsPerSecond, 0)).join(', ');
  const cpu = (list: readonly ConsumerRun[]): number => round(mean(list.map((run) => run.cpuMsPerEvent)), 3);
  const retried = (list: readonly ConsumerRun[]): number => list.reduce((sum, run) => sum + run.retries, 0);
  const ratio = round(
    mean(runs.on.map((run) => run.eventsPerSecond)) / mean(runs.off.map((run) => run.eventsPerSecond)),
  );
  return {
    ratio,
    figures: {
      [`consumer events/s, lake hand-off on (${consumerRequests * 100} events a run)`]: rates(runs.on),
      'consumer events/s, lake hand-off off': rates(runs.off),
      'consumer throughput, lake on / off': ratio,
      ...(rounds > 1
        ? { 'on / off of each round (on, off, off, on)': ratios.map((value) => round(value)).join(', ') }
        : {}),
      'CPU ms per event, lake on / off': `${cpu(runs.on)} / ${cpu(runs.off)}`,
      'hand-off packing CPU per event (µs)': round(handOffPackingCpu(300), 1),
      // A function that timed out on a starved machine: the run did more than its load.
      'requests retried after a 5xx, on / off': `${retried(runs.on)} / ${retried(runs.off)}`,
    },
  };
}

/** The Parquet figures and the consumer's, as one report. */
async function main(): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'flock-bench-lake-'));
  const store = directoryLakeStore(root);
  await lakeDatabase();
  let writerCpu = 0;
  let encodeCpu = 0;
  let flushedBytes = 0;
  try {
    for (let first = 0; first < events; first += flushEvents) {
      const batch = Array.from({ length: Math.min(flushEvents, events - first) }, (_, k) =>
        lakeEventOf(first + k),
      );
      const flushedAt = new Date(Date.parse(batch.at(-1)!.timestamp) + 60_000);
      const name = `${lakeTimeName(flushedAt)}-${randomBytes(6).toString('hex')}`;
      // The writer, as functions/lake/flush.ts: events by date, one file per date, each row built
      // as the file takes it.
      let began = cpuMs();
      const byDate = new Map<string, LakeEvent[]>();
      for (const event of batch) {
        const date = lakeDateOf(event.timestamp);
        const kept = byDate.get(date) ?? [];
        kept.push(event);
        byDate.set(date, kept);
      }
      const files: [string, Buffer][] = [];
      for (const [date, kept] of byDate)
        files.push([lakeFileKey(projectId, date, name), await parquetOf(lakeRowsOf(kept, {}, flushedAt))]);
      writerCpu += cpuMs() - began;
      for (const [key, body] of files) {
        await store.put(key, body);
        flushedBytes += body.length;
      }
      // The baseline: the same rows, built before the clock starts, encoded once.
      const rows = [...byDate.values()].flat().map((event) => lakeRowOf(event, {}, flushedAt));
      began = cpuMs();
      await parquetOf(rows);
      encodeCpu += cpuMs() - began;
    }
    const puts = store.operations.puts;

    const compactionBegan = cpuMs();
    const settled = new Date(start + (days + 1) * 86_400_000 + lakeCompaction.settleSeconds * 1000);
    const compaction = await compactLake(store, settings, Date.now() + 3_600_000, () => settled);
    const compactionCpu = cpuMs() - compactionBegan;
    // Merged files go after the grace period: a run past it removes them.
    await compactLake(store, settings, Date.now() + 3_600_000);

    const readable = await lakeFilesToRead(
      async (prefix) => (await store.list(prefix)).map((object) => object.key),
      projectId,
    );
    const sizes = new Map((await store.list(lakeProjectPrefix(projectId))).map((o) => [o.key, o.size]));
    const compactedBytes = readable.reduce((sum, key) => sum + (sizes.get(key) ?? 0), 0);
    const { connection } = await lakeDatabase();
    const [counted] = (
      await connection.runAndReadAll(
        `SELECT count(*) AS rows, count(DISTINCT uuid) AS uuids, count(DISTINCT CAST("timestamp" AS DATE)) AS days ` +
          `FROM read_parquet([${readable.map((key) => `'${join(root, key)}'`).join(', ')}])`,
      )
    ).getRowObjectsJson();
    const [rows, uuids] = [Number(counted!.rows), Number(counted!.uuids)];
    if (rows !== events || uuids !== events)
      throw new Error(`the lake holds ${rows} rows, ${uuids} distinct, of ${events} events`);
    const projectDays = Number(counted!.days);
    // Where the bytes go: the mix draws three random UUIDs per event (uuid, $session_id, $window_id),
    // 16 bytes each that nothing compresses; the rest is under a dozen bytes.
    const columns = (
      await connection.runAndReadAll(
        `SELECT path_in_schema AS name, sum(total_compressed_size) AS bytes FROM parquet_metadata([${readable
          .map((key) => `'${join(root, key)}'`)
          .join(', ')}]) GROUP BY 1 ORDER BY 2 DESC LIMIT 8`,
      )
    ).getRowObjectsJson();

    const consumer = await consumerFigures(1);

    const bytesPerEvent = round(compactedBytes / events, 1);
    const putsPerMillion = round((puts / events) * 1_000_000, 0);
    const cpuRatio = round(writerCpu / encodeCpu, 2);
    const filesPerDay = round(readable.length / projectDays, 2);
    report(
      `lake: ${events} events of the bench's mix, one project, ${days} days, flushes of ${flushEvents}`,
      {
        'Parquet bytes per event, compacted': bytesPerEvent,
        'Parquet bytes per event, flushed': round(flushedBytes / events, 1),
        'PUTs per million events (flushes)': putsPerMillion,
        'flush files written': puts,
        'writer CPU per event (µs)': round((writerCpu * 1000) / events, 1),
        'DuckDB encoding once, per event (µs)': round((encodeCpu * 1000) / events, 1),
        'writer CPU / encoding once': cpuRatio,
        'compaction CPU per event (µs)': round((compactionCpu * 1000) / events, 1),
        'files merged / written': `${compaction.filesMerged} / ${compaction.filesWritten}`,
        'files per project-day, compacted': filesPerDay,
        ...Object.fromEntries(
          columns.map((column) => [
            `  bytes per event: ${column.name as string}`,
            round(Number(column.bytes) / events, 1),
          ]),
        ),
        ...consumer.figures,
        'load average (1 min)': round(loadavg()[0]!, 1),
      },
      '≤ 60 bytes/event, ≤ 200 PUTs/M events, CPU ratio ≤ 2, ≤ 4 files/project-day, consumer lake on/off ≥ 0.9',
      {
        figure: `${bytesPerEvent} B/event, ${putsPerMillion} PUTs/M, CPU ×${cpuRatio}, ${filesPerDay} files/day, consumer ×${consumer.ratio}`,
        met:
          bytesPerEvent <= 60 &&
          putsPerMillion <= 200 &&
          cpuRatio <= 2 &&
          filesPerDay <= 4 &&
          consumer.ratio >= consumerTarget,
      },
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/**
 * `BENCH_LAKE_PART=consumer`: the consumer's figure alone, in `BENCH_LAKE_ROUNDS` rounds (default 3)
 * of on, off, off, on, to see its spread on a shared machine; the Parquet part is skipped.
 */
async function consumerOnly(): Promise<void> {
  const rounds = numberSetting('BENCH_LAKE_ROUNDS', 3);
  const consumer = await consumerFigures(rounds);
  report(
    `lake, the consumer alone: ${rounds} rounds of on, off, off, on`,
    { ...consumer.figures, 'load average (1 min)': round(loadavg()[0]!, 1) },
    `consumer lake on/off ≥ ${consumerTarget}`,
    { figure: `consumer ×${consumer.ratio}`, met: consumer.ratio >= consumerTarget },
  );
}

(environmentValue('BENCH_LAKE_PART') === 'consumer' ? consumerOnly() : main()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
