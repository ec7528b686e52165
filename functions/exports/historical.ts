import { createHash, randomBytes } from 'node:crypto';
import { eventIndexes } from '../shared/db/event-index';
import { listEvents } from '../shared/db/events';
import type { PluginConfigRecord } from '../shared/db/plugin-configs';
import { getPluginConfig } from '../shared/db/plugin-configs';
import { secretCipher } from '../shared/secrets/environment';
import { openSettings } from '../shared/secrets/plugin-settings';
import { countDeliveries } from '../shared/db/plugin-exports';
import type { PluginJob, PluginJobProgress } from '../shared/db/plugin-jobs';
import {
  finishPluginJob,
  leasePluginJob,
  pendingPluginJobs,
  releasePluginJob,
  savePluginJobProgress,
} from '../shared/db/plugin-jobs';
import { exportRangeOf } from '../shared/domain/plugins/historical-export';
import { toProcessedPluginEvent } from '../shared/domain/plugins/processed-event';
import type { S3ExportState } from '../shared/domain/plugins/s3-export';
import {
  EXPORT_HISTORICAL_EVENTS,
  eventsToExport,
  s3ExportObject,
  s3ExportPlugin,
} from '../shared/domain/plugins/s3-export';
import { setupPluginConfig } from '../shared/domain/plugins/setup';
import { logger } from '../shared/logger';
import { countMetric, metricNames } from '../shared/metrics';
import { chunkBySize } from '../shared/chunks';
import { exportFailureOf, invalidConfig } from './export-error';
import { reportExportFailure, writePluginLog } from './outcome';
import { uploadObject } from './upload';

/**
 * PostHog's "Export historical events" job, run by the schedule (every minute): the pending jobs of
 * the pending-jobs index, each taken with a lease. A job reads its project's stored events in its
 * range oldest first, a page at a time, and uploads each page to the config's bucket in the live
 * export's layout. Bounded work per run (`maxPagesPerRun` per job, `runBudgetMs`): a job over a large
 * range saves its cursor and goes on in the next run.
 *
 * Configs take turns, a page each (round-robin), each with its oldest job: one config's large export
 * cannot take a run from the others. A page's upload has at most `stepBudgetMs`; a page that fails
 * (a destination that hangs included) ends its config's turns for the run.
 *
 * Exactly once: before a page is uploaded, the job saves the upload's time and seed (the keys of its
 * objects derive from them); after it, the cursor past the page. A run that stops between the two
 * uploads the same page again under the same keys, overwriting, never adding an object.
 */

export interface HistoricalJobLimits {
  readonly pageSize: number;
  readonly maxPagesPerRun: number;
  readonly runBudgetMs: number;
  readonly stepBudgetMs: number;
  readonly leaseMs: number;
  readonly maxFailures: number;
}

export const historicalJobLimits: HistoricalJobLimits = {
  /**
   * Events per page: at most one object per page, unless `uploadMegabytes` cuts it. A stored event
   * is at most 240 KiB, so a page holds at most 60 MB in memory (the function has 512 MB).
   */
  pageSize: 250,
  maxPagesPerRun: 40,
  /** Of the function's 120 s: a page (read + upload) started before this ends well within it. */
  runBudgetMs: 60_000,
  /** What one page's upload may take (connect, send, retries): a hanging destination costs this. */
  stepBudgetMs: 25_000,
  /** The lease outlives any run, so two runs never work on one job. */
  leaseMs: 180_000,
  /** Steps failing in a row before the job is failed. */
  maxFailures: 5,
} as const;

interface JobContext {
  readonly singleTable: string;
  readonly eventsTable: string;
  readonly job: PluginJob;
  readonly config: PluginConfigRecord;
  readonly state: S3ExportState;
  readonly limits: HistoricalJobLimits;
}

/** The object keys' suffixes: 16 hex digits each, from the upload's seed and the object's place. */
const suffixOf = (seed: string, part: number): string =>
  createHash('sha256').update(`${seed}#${part}`).digest('hex').slice(0, 16);

/** One page: read after the cursor, uploaded, progress saved; `done` once the range is exhausted. */
async function exportPage(
  context: JobContext,
  progress: PluginJobProgress,
  signal: AbortSignal,
): Promise<{ progress: PluginJobProgress; done: boolean }> {
  const { job, state } = context;
  const range = exportRangeOf(job.request.payload);
  if (!range.ok) throw new Error(range.message);
  const { upload } = progress;
  if (!upload) throw new Error('A page is exported only once its upload is saved');
  const { events, resumeFrom } = await listEvents({
    tableName: context.eventsTable,
    projectId: context.config.team_id,
    index: eventIndexes.all,
    values: [''],
    order: 'oldest',
    limit: context.limits.pageSize,
    bounds: {
      // Strictly after the cursor, or after the millisecond before the start (timestamps are in ms).
      after: progress.cursor ?? { timestamp: new Date(range.range.from.getTime() - 1).toISOString() },
      before: { timestamp: range.range.toExclusive.toISOString() },
    },
  });
  const exported = eventsToExport(events.map(toProcessedPluginEvent), state);
  const parts = chunkBySize(
    exported,
    (event) => Buffer.byteLength(JSON.stringify(event)) + 1,
    state.uploadMegabytes * 1024 * 1024,
  );
  for (const [part, partEvents] of parts.entries()) {
    const object = s3ExportObject(partEvents, state, new Date(upload.time), suffixOf(upload.seed, part));
    if (object) await uploadObject(state, object, signal);
  }
  // Where reading stopped: every entry up to it was read (a page cut short by the reader's budget
  // stops there too), so the next page starts after it.
  const last = events[events.length - 1];
  const stop = resumeFrom ?? (last ? { timestamp: last.timestamp, uuid: last.uuid } : progress.cursor);
  const next: PluginJobProgress = {
    exported: progress.exported + exported.length,
    failures: 0,
    ...(stop ? { cursor: { timestamp: stop.timestamp, uuid: stop.uuid } } : {}),
  };
  await savePluginJobProgress(context.singleTable, job, next);
  await countDeliveries(
    context.singleTable,
    context.config.team_id,
    context.config.id,
    { delivered: exported.length, failed: 0 },
    new Date(),
  ).catch((error: unknown) => logger.warn('Counting export deliveries failed', { reason: String(error) }));
  countMetric(metricNames.eventsExported, exported.length);
  return { progress: next, done: resumeFrom === undefined };
}

/** The config a job runs for, set up; or why the job cannot run. */
async function loadJobConfig(
  singleTable: string,
  job: PluginJob,
): Promise<{ config: PluginConfigRecord; state?: S3ExportState; error?: string } | undefined> {
  const config = await getPluginConfig(singleTable, job.request.pluginConfigTeam, job.request.pluginConfigId);
  if (!config) return undefined;
  if (config.plugin !== s3ExportPlugin.id || job.request.type !== EXPORT_HISTORICAL_EVENTS)
    return { config, error: `Unknown job "${job.request.type.slice(0, 200)}".` };
  if (!config.enabled) return { config, error: 'The plugin config is disabled.' };
  const setup = setupPluginConfig(s3ExportPlugin, await openSettings(secretCipher(), config), new Date());
  return setup.ok ? { config, state: setup.state as S3ExportState } : { config, error: setup.error.message };
}

/** A job being run: its config, set up, and where it stands. */
interface RunningJob {
  readonly context: JobContext;
  progress: PluginJobProgress;
  pages: number;
}

/** Starts a leased job: its config set up and its start logged; undefined if it cannot run (finished). */
async function openJob(
  singleTable: string,
  eventsTable: string,
  job: PluginJob,
  limits: HistoricalJobLimits,
): Promise<RunningJob | undefined> {
  const loaded = await loadJobConfig(singleTable, job);
  if (!loaded) {
    await finishPluginJob(singleTable, job, 'failed', new Date());
    return undefined;
  }
  const { config, state } = loaded;
  if (!state) {
    await reportExportFailure(singleTable, config, invalidConfig(loaded.error ?? ''), new Date());
    await finishPluginJob(singleTable, job, 'failed', new Date());
    return undefined;
  }
  const progress = job.progress;
  if (progress.exported === 0 && !progress.cursor && !progress.upload)
    await writePluginLog(
      singleTable,
      config,
      'INFO',
      `Starting the historical export (job ${job.id}).`,
      new Date(),
    );
  return { context: { singleTable, eventsTable, job, config, state, limits }, progress, pages: 0 };
}

/** One page of a running job: `more` to go on, `finished` (done or failed), `paused` until the next run. */
async function runStep(running: RunningJob, deadline: number): Promise<'more' | 'finished' | 'paused'> {
  const { singleTable, job, config, limits } = running.context;
  let step;
  try {
    if (!running.progress.upload) {
      // Saved before uploading: a retry of this page puts its objects under the same keys.
      running.progress = {
        ...running.progress,
        upload: { time: new Date().toISOString(), seed: randomBytes(8).toString('hex') },
      };
      await savePluginJobProgress(singleTable, job, running.progress);
    }
    // The page's own time, and never past the run's end by more than it.
    const signal = AbortSignal.timeout(Math.min(limits.stepBudgetMs, Math.max(0, deadline - Date.now())));
    step = await exportPage(running.context, running.progress, signal);
  } catch (error) {
    const failures = running.progress.failures + 1;
    const failure = exportFailureOf(error);
    logger.error('A historical export step failed', {
      jobId: job.id,
      failures,
      code: failure.code,
      reason: String(error),
    });
    await reportExportFailure(singleTable, config, failure, new Date());
    await savePluginJobProgress(singleTable, job, { ...running.progress, failures });
    if (failures < limits.maxFailures) return 'paused';
    await writePluginLog(
      singleTable,
      config,
      'ERROR',
      `The historical export failed (job ${job.id}).`,
      new Date(),
    );
    await finishPluginJob(singleTable, job, 'failed', new Date());
    return 'finished';
  }
  running.progress = step.progress;
  running.pages++;
  if (!step.done) return running.pages < limits.maxPagesPerRun ? 'more' : 'paused';
  await writePluginLog(
    singleTable,
    config,
    'INFO',
    `The historical export is done: ${running.progress.exported} events exported (job ${job.id}).`,
    new Date(),
  );
  await finishPluginJob(singleTable, job, 'done', new Date());
  return 'finished';
}

/** A config's turn in a run: its pending jobs, oldest first, and the one running. */
interface ConfigTurns {
  readonly waiting: PluginJob[];
  running?: RunningJob;
}

/** The config's next job that this run could lease and start; undefined when it has none left. */
async function nextJob(
  singleTable: string,
  eventsTable: string,
  turns: ConfigTurns,
  limits: HistoricalJobLimits,
): Promise<RunningJob | undefined> {
  for (let job = turns.waiting.shift(); job; job = turns.waiting.shift()) {
    const now = new Date();
    if (!(await leasePluginJob(singleTable, job, now, new Date(now.getTime() + limits.leaseMs)))) continue;
    try {
      const running = await openJob(singleTable, eventsTable, job, limits);
      if (running) return running;
    } catch (error) {
      logger.error('A plugin job run failed', { jobId: job.id, reason: String(error) });
      await releasePluginJob(singleTable, job).catch(() => undefined);
    }
  }
  return undefined;
}

/** Gives the config its next page; false once its turns in this run are over. */
async function takeTurn(
  singleTable: string,
  eventsTable: string,
  turns: ConfigTurns,
  limits: HistoricalJobLimits,
  deadline: number,
): Promise<boolean> {
  turns.running ??= await nextJob(singleTable, eventsTable, turns, limits);
  const running = turns.running;
  if (!running) return false;
  let result: 'more' | 'finished' | 'paused';
  try {
    result = await runStep(running, deadline);
  } catch (error) {
    // Its progress is saved: the next run goes on from there once the lease is released.
    logger.error('A plugin job run failed', { jobId: running.context.job.id, reason: String(error) });
    result = 'paused';
  }
  if (result === 'more') return true;
  turns.running = undefined;
  if (result === 'finished') return true;
  await releasePluginJob(singleTable, running.context.job).catch(() => undefined);
  return false;
}

/**
 * `stop` requests (PostHog's `$operation: stop`) end the pending exports of their config requested
 * before them; a stop is itself done at once.
 */
async function applyStops(singleTable: string, jobs: readonly PluginJob[], now: Date): Promise<PluginJob[]> {
  const stops = jobs.filter((job) => job.request.payload.$operation === 'stop');
  const stopped = new Set<string>();
  for (const stop of stops) {
    for (const job of jobs) {
      if (stopped.has(job.id) || job.request.pluginConfigId !== stop.request.pluginConfigId) continue;
      if (job === stop || job.createdAt <= stop.createdAt) {
        await finishPluginJob(singleTable, job, job === stop ? 'done' : 'stopped', now);
        stopped.add(job.id);
      }
    }
  }
  return jobs.filter((job) => !stopped.has(job.id));
}

/** One scheduled run: the configs with pending jobs take turns, a page each, within the run's budget. */
export async function runPluginJobs(
  singleTable: string,
  eventsTable: string,
  limits: HistoricalJobLimits = historicalJobLimits,
  startedAt = Date.now(),
): Promise<void> {
  const deadline = startedAt + limits.runBudgetMs;
  const jobs = await applyStops(singleTable, await pendingPluginJobs(singleTable, 100), new Date());
  // The index lists jobs oldest first: each config's in that order, configs by their oldest job.
  const byConfig = new Map<string, ConfigTurns>();
  for (const job of jobs) {
    const key = `${job.request.pluginConfigTeam}#${job.request.pluginConfigId}`;
    const turns = byConfig.get(key) ?? { waiting: [] };
    turns.waiting.push(job);
    byConfig.set(key, turns);
  }
  let active = [...byConfig.values()];
  while (active.length > 0 && Date.now() < deadline) {
    const next: ConfigTurns[] = [];
    for (const turns of active) {
      if (Date.now() >= deadline) {
        next.push(turns);
        continue;
      }
      if (await takeTurn(singleTable, eventsTable, turns, limits, deadline)) next.push(turns);
    }
    active = next;
  }
  // The run is over: jobs still running wait for the next one.
  for (const turns of active)
    if (turns.running) await releasePluginJob(singleTable, turns.running.context.job).catch(() => undefined);
}
