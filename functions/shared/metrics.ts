import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { projectMetricsEnabled, serviceName } from './config';

/** The CloudWatch namespace of every Flock metric (the dashboard and alarms read it). */
export const metricsNamespace = 'Flock';

/**
 * Every metric a function emits, by name: where an event went, how long the public endpoints took.
 * The dashboard (lib/flock-dashboard.ts) and the local summary line (bin/local) read these names.
 */
export const metricNames = {
  /** Events in requests capture accepted (before dropping any). */
  eventsReceived: 'EventsReceived',
  /** Events capture or the consumer dropped, by `reason` (see `DropReason`). */
  eventsDropped: 'EventsDropped',
  /** Events capture handed to the ingest queue. */
  eventsQueued: 'EventsQueued',
  /** Events the consumer stored. */
  eventsStored: 'EventsStored',
  /**
   * Events not stored again because the same batch carried their uuid before (an SDK retry or a
   * beacon landing in the same batch): stored once, counted once in EventsStored.
   */
  eventsDuplicate: 'EventsDuplicate',
  /**
   * Events whose uuid was already stored before the batch (a redelivered message, an SDK retry of a
   * request that was stored): written again over the same item, not counted in EventsStored.
   */
  eventsAlreadyStored: 'EventsAlreadyStored',
  /** Queue messages capture could not send after every attempt (the client got a 503). */
  queueSendFailures: 'QueueSendFailures',
  /** Consumer messages left for SQS to retry. */
  failedMessages: 'FailedMessages',
  /** Consumer batches in which at least one message failed. */
  failedBatches: 'FailedBatches',
  /** Messages that failed their last allowed receive: SQS moves them to the dead-letter queue. */
  deadLettered: 'DeadLettered',
  /** Responses of 500 and above an HTTP function answered (by its `service`). */
  httpServerErrors: 'HttpServerErrors',
  /** Cohort calculations that succeeded and that failed (counted in `errors_calculating`). */
  cohortsCalculated: 'CohortsCalculated',
  cohortCalculationFailures: 'CohortCalculationFailures',
  /** Stored events the consumer handed to the exports queue (projects with an export config). */
  eventsToExport: 'EventsToExport',
  /** Events the exports function delivered to their destination, and those it gave up on. */
  eventsExported: 'EventsExported',
  exportFailures: 'ExportFailures',
  /** Stored events the consumer handed to the lake queue. */
  eventsToLake: 'EventsToLake',
  /** Events the lake function wrote to a lake file, and those it skipped as already written. */
  lakeEventsWritten: 'LakeEventsWritten',
  lakeDuplicates: 'LakeDuplicates',
  /** Lake files the lake function wrote (S3 PUTs). */
  lakeFiles: 'LakeFiles',
  /** How long each consumer stage took on a batch (ms), by `stage` (functions/consumer/stages.ts). */
  consumerStageDuration: 'ConsumerStageDuration',
  /** Best-effort consumer stages that failed on a batch (logged; the messages went on), by `stage`. */
  consumerStageFailures: 'ConsumerStageFailures',
  captureLatency: 'CaptureLatency',
  decideLatency: 'DecideLatency',
} as const;

/** Why an event was not stored: the `reason` dimension of EventsDropped. */
export type DropReason = 'invalid' | 'too_large' | 'plugin' | 'downsampled';

/** The dimension per project: only on the counts ops look at per project (two metrics per project). */
export const projectDimension = 'project';

/** EMF lines written in one `write` to stdout, as Powertools' Console writes its own (text, newline). */
function writeLines(lines: readonly string[]): void {
  if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * Powertools Metrics (EMF: one JSON line per flush that CloudWatch turns into metrics, no API calls).
 * Every function flushes it after each invocation with Powertools' `logMetrics` middleware
 * (functions/shared/invocation.ts). The lines of counts with dimensions of their own (per project,
 * per drop reason) are held until then and written with the invocation's line, in one write: a
 * write to stdout costs more than building a line.
 */
class FlockMetrics extends Metrics {
  readonly #held: string[] = [];

  /** Whether Powertools writes lines at all (not under `POWERTOOLS_METRICS_DISABLED` or dev mode). */
  writesLines(): boolean {
    return !this.isDisabled();
  }

  /** Keeps an EMF line of its own for the invocation's flush. */
  hold(line: string): void {
    this.#held.push(line);
  }

  /** Whether the invocation has anything to write: stored metrics or held lines. */
  hasPendingLines(): boolean {
    return this.#held.length > 0 || this.hasStoredMetrics();
  }

  /**
   * Powertools' publishing (its serialisation of the stored metrics, then its stores cleared), with
   * the held lines written in the same write as the invocation's line.
   */
  override publishStoredMetrics(): this {
    // An invocation that counted nothing (most private API requests) writes nothing: Powertools
    // would log a warning for it.
    if (!this.hasPendingLines()) return this;
    const lines = this.#held.splice(0);
    try {
      if (this.hasStoredMetrics() && this.writesLines()) lines.push(JSON.stringify(this.serializeMetrics()));
    } finally {
      this.clearMetrics();
      this.clearDimensions();
      this.clearMetadata();
      writeLines(lines);
    }
    return this;
  }
}

export const metrics = new FlockMetrics({ namespace: metricsNamespace, serviceName: serviceName() });

export function countMetric(name: string, value: number): void {
  if (value > 0) metrics.addMetric(name, MetricUnit.Count, value);
}

/** The service dimension every line carries (Powertools' default dimension, read once like it). */
const service = serviceName();

/**
 * A count in an EMF line of its own with one dimension besides the service: the very line
 * Powertools' `singleMetric()` writes, built directly (Powertools' store, validation and
 * serialisation cost several times the line itself, once per request in capture), and written with
 * the invocation's line. Only where Powertools writes its own lines.
 */
function lineOfItsOwn(
  name: string,
  value: number,
  dimension: string,
  dimensionValue: string,
  unit: (typeof MetricUnit)[keyof typeof MetricUnit] = MetricUnit.Count,
): void {
  if (!metrics.writesLines()) return;
  const directive = {
    Namespace: metricsNamespace,
    Dimensions: [['service', dimension]],
    Metrics: [{ Name: name, Unit: unit }],
  };
  const line = JSON.stringify({
    _aws: { Timestamp: Date.now(), CloudWatchMetrics: [directive] },
    service,
    [dimension]: dimensionValue,
    [name]: value,
  });
  metrics.hold(line);
}

export function countDropped(reason: DropReason, value: number): void {
  if (value > 0) lineOfItsOwn(metricNames.eventsDropped, value, 'reason', reason);
}

/** The dimension of the consumer's per-stage metrics. */
export const stageDimension = 'stage';

/** How long a consumer stage took on one batch (ms), in a line of its own per stage. */
export function recordStageDuration(stage: string, milliseconds: number): void {
  lineOfItsOwn(
    metricNames.consumerStageDuration,
    milliseconds,
    stageDimension,
    stage,
    MetricUnit.Milliseconds,
  );
}

/** A best-effort consumer stage that failed on a batch. */
export function countStageFailure(stage: string): void {
  lineOfItsOwn(metricNames.consumerStageFailures, 1, stageDimension, stage);
}

/**
 * A count per project, in an EMF line of its own (its dimensions differ from the invocation's). Off where the stack turns project metrics off (too many projects to pay for).
 */
export function countPerProject(name: string, counts: ReadonlyMap<number, number>): void {
  if (!projectMetricsEnabled()) return;
  for (const [projectId, value] of counts) {
    if (value > 0) lineOfItsOwn(name, value, projectDimension, String(projectId));
  }
}

/** `fn` with its duration, success or failure, recorded as the latency metric `name` (ms). */
export function timed<A extends unknown[], R>(
  name: string,
  fn: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A): Promise<R> => {
    const startedAt = performance.now();
    try {
      return await fn(...args);
    } finally {
      metrics.addMetric(name, MetricUnit.Milliseconds, performance.now() - startedAt);
    }
  };
}
