import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  MathExpression,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { chunked } from '../functions/shared/chunks';
import { metricNames, metricsNamespace, projectDimension } from '../functions/shared/metrics';

export interface FlockMonitoringProps {
  readonly ingestQueue: IQueue;
  readonly deadLetterQueue: IQueue;
  readonly exportsDeadLetterQueue: IQueue;
  readonly exports: IFunction;
  readonly consumer: IFunction;
  readonly cohortCalculation: IFunction;
  /** The HTTP functions by group name. */
  readonly httpFunctions: Readonly<Record<string, IFunction>>;
  readonly api: IHttpApi;
  /**
   * Age of the oldest waiting event above which the consumer is considered behind.
   * @default Duration.minutes(5)
   */
  readonly maxQueueAge?: Duration;
  /**
   * Draw the per-project event counts (the functions emit them unless the stack turns them off).
   * @default true
   */
  readonly projectMetrics?: boolean;
}

/** CloudWatch metric math takes at most 10 metrics per alarm expression. */
const maxMetricsPerAlarm = 10;

/** The sum of `metrics` as one expression (`m0 + m1 + …`), for an alarm or a graph. */
function sumOf(metrics: readonly IMetric[], label: string, period: Duration): MathExpression {
  return new MathExpression({
    expression: metrics.map((_, i) => `m${i}`).join(' + '),
    usingMetrics: Object.fromEntries(metrics.map((metric, i) => [`m${i}`, metric])),
    label,
    period,
  });
}

const oneMinute = Duration.minutes(1);

/**
 * What ops watch: alarms on dead letters, ingest lag and consumer crashes, and one dashboard.
 * The alarms have no actions: subscribe a topic or pager to them per deployment.
 */
export class FlockMonitoring extends Construct {
  /** Any message in the DLQ is an accepted event that was not stored: redrive it (ops CLI). */
  public readonly deadLetterAlarm: Alarm;
  /** Any message in the exports DLQ is stored events an S3 Export did not deliver: fix, then redrive. */
  public readonly exportsDeadLetterAlarm: Alarm;
  /** The consumer is falling behind (or not running): events wait too long to be stored. */
  public readonly queueAgeAlarm: Alarm;
  /** The consumer threw or timed out: a whole batch failed (single failed records are reported, not thrown). */
  public readonly consumerErrorsAlarm: Alarm;
  /** Capture answered 5xx (SDKs retry, but events wait on the device): queue sends, crashes, throttles. */
  public readonly captureServerErrorsAlarm: Alarm;
  /** Cohort calculations keep failing (or their runs crash): counts and members go stale. */
  public readonly cohortCalculationAlarm: Alarm;
  /** Lambda refused invocations of a function: its concurrency is exhausted. */
  public readonly throttleAlarms: Alarm[];
  public readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: FlockMonitoringProps) {
    super(scope, id);
    const maxQueueAge = props.maxQueueAge ?? Duration.minutes(5);

    const deadLetters = props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      period: oneMinute,
      statistic: Stats.MAXIMUM,
    });
    this.deadLetterAlarm = new Alarm(this, 'DeadLetterQueueNotEmpty', {
      alarmDescription:
        'Flock: events are waiting in the dead-letter queue. Runbook (README) step 1 "The DLQ alarm fired": ' +
        'npm run flock -- dlq list, fix the cause, then dlq redrive',
      metric: deadLetters,
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const exportDeadLetters = props.exportsDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
      period: oneMinute,
      statistic: Stats.MAXIMUM,
    });
    this.exportsDeadLetterAlarm = new Alarm(this, 'ExportsDeadLetterQueueNotEmpty', {
      alarmDescription:
        'Flock: exports are waiting in the exports dead-letter queue (stored events an S3 Export did not deliver). ' +
        'Runbook (README) step 8 "The exports DLQ alarm fired"',
      metric: exportDeadLetters,
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const oldestMessageAge = props.ingestQueue.metricApproximateAgeOfOldestMessage({
      period: oneMinute,
      statistic: Stats.MAXIMUM,
    });
    this.queueAgeAlarm = new Alarm(this, 'IngestQueueBacklog', {
      alarmDescription: `Flock: the oldest queued event has waited more than ${maxQueueAge.toSeconds()} s; the consumer is behind. Runbook (README) step 2 "The queue is backing up"`,
      metric: oldestMessageAge,
      threshold: maxQueueAge.toSeconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      // Three minutes in a row: a short spike after a burst is not lag.
      evaluationPeriods: 3,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    // Lambda's Errors count a batch whose every record failed too: the consumer throws then
    // (functions/shared/queue/batch-failure.ts) rather than answer a partial response listing them all.
    this.consumerErrorsAlarm = new Alarm(this, 'ConsumerErrors', {
      alarmDescription:
        'Flock: the ingest consumer threw, timed out or failed every record of a batch (whole batches are being retried). Runbook (README) step 3 "The consumer is failing"',
      metric: props.consumer.metricErrors({ period: Duration.minutes(5), statistic: Stats.SUM }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const functions: [string, IFunction][] = [
      ...Object.entries(props.httpFunctions),
      ['consumer', props.consumer],
      ['cohort_calculation', props.cohortCalculation],
      ['exports', props.exports],
    ];
    const perFunction = (metric: (fn: IFunction) => Metric): IMetric[] =>
      functions.map(([name, fn]) => metric(fn).with({ label: name }));
    const fiveMinutes = Duration.minutes(5);
    /** A metric the functions emit (EMF), for the function whose service name is `service`. */
    const flock = (metricName: string, service: string, statistic: string = Stats.SUM): Metric =>
      new Metric({
        namespace: metricsNamespace,
        metricName,
        dimensionsMap: { service },
        statistic,
        period: oneMinute,
        label: `${metricName} (${service})`,
      });
    /**
     * Every series of `metricName` split by its dimensions (one line per value): a SEARCH expression.
     * `dimensions` are the metric's full dimension set besides `service`.
     */
    const search = (
      metricName: string,
      dimensions: readonly string[],
      label: string,
      period = oneMinute,
    ): MathExpression =>
      new MathExpression({
        expression: `SEARCH('{${[metricsNamespace, 'service', ...dimensions].join(',')}} MetricName="${metricName}"', 'Sum', ${period.toSeconds()})`,
        usingMetrics: {},
        label,
        period,
      });

    const capture = props.httpFunctions.capture;
    if (!capture) throw new Error('FlockMonitoring needs the capture function');
    this.captureServerErrorsAlarm = new Alarm(this, 'CaptureServerErrors', {
      alarmDescription:
        'Flock: capture answered 5xx (SDKs retry, events wait on devices). Runbook (README) step 5 "Capture answers 5xx"',
      metric: sumOf(
        [
          flock(metricNames.httpServerErrors, 'capture').with({ period: fiveMinutes }),
          capture.metricErrors({ period: fiveMinutes, statistic: Stats.SUM }),
          capture.metricThrottles({ period: fiveMinutes, statistic: Stats.SUM }),
        ],
        'capture 5xx, crashes and throttles',
        fiveMinutes,
      ),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    this.cohortCalculationAlarm = new Alarm(this, 'CohortCalculationFailures', {
      alarmDescription:
        'Flock: cohort calculations failed for 15 minutes (cohort counts and members are stale). Runbook (README) step 7 "Cohort calculations fail"',
      metric: sumOf(
        [
          flock(metricNames.cohortCalculationFailures, 'cohort_calculation').with({ period: fiveMinutes }),
          props.cohortCalculation.metricErrors({ period: fiveMinutes, statistic: Stats.SUM }),
        ],
        'cohort calculation failures and crashes',
        fiveMinutes,
      ),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      // A failing cohort is retried every minute: three periods in a row is a lasting fault.
      evaluationPeriods: 3,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    this.throttleAlarms = chunked(functions, maxMetricsPerAlarm).map(
      (group, index) =>
        new Alarm(this, index === 0 ? 'FunctionThrottles' : `FunctionThrottles${index + 1}`, {
          alarmDescription: `Flock: Lambda throttled ${group.map(([name]) => name).join(', ')}. Runbook (README) step 6 "Functions are throttled"`,
          metric: sumOf(
            group.map(([, fn]) => fn.metricThrottles({ period: fiveMinutes, statistic: Stats.SUM })),
            'throttles',
            fiveMinutes,
          ),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 1,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
    );

    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      new AlarmStatusWidget({
        title: 'Alarms',
        alarms: [
          this.deadLetterAlarm,
          this.exportsDeadLetterAlarm,
          this.queueAgeAlarm,
          this.consumerErrorsAlarm,
          this.captureServerErrorsAlarm,
          this.cohortCalculationAlarm,
          ...this.throttleAlarms,
        ],
        width: 24,
      }),
    );
    // Where every event went: received and queued by capture, stored, duplicate and dropped by the consumer.
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Events (per minute)',
        left: [
          flock(metricNames.eventsReceived, 'capture'),
          flock(metricNames.eventsQueued, 'capture'),
          flock(metricNames.eventsStored, 'consumer'),
          flock(metricNames.eventsDuplicate, 'consumer'),
          flock(metricNames.eventsToExport, 'consumer'),
          flock(metricNames.eventsExported, 'exports'),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Events dropped, by reason',
        left: [search(metricNames.eventsDropped, ['reason'], 'dropped')],
        width: 8,
      }),
      new GraphWidget({
        title: 'Failures',
        left: [
          flock(metricNames.queueSendFailures, 'capture'),
          flock(metricNames.failedMessages, 'consumer'),
          flock(metricNames.failedBatches, 'consumer'),
          flock(metricNames.deadLettered, 'consumer'),
          search(metricNames.httpServerErrors, [], '5xx'),
          flock(metricNames.cohortCalculationFailures, 'cohort_calculation'),
          flock(metricNames.exportFailures, 'exports'),
        ],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Capture and decide latency (ms)',
        left: [
          flock(metricNames.captureLatency, 'capture', Stats.p(50)).with({ label: 'capture p50' }),
          flock(metricNames.captureLatency, 'capture', Stats.p(99)).with({ label: 'capture p99' }),
          flock(metricNames.decideLatency, 'flags', Stats.p(50)).with({ label: 'decide p50' }),
          flock(metricNames.decideLatency, 'flags', Stats.p(99)).with({ label: 'decide p99' }),
        ],
        width: 24,
      }),
    );
    if (props.projectMetrics ?? true)
      this.dashboard.addWidgets(
        new GraphWidget({
          title: 'Events received per project (5 min)',
          left: [search(metricNames.eventsReceived, [projectDimension], 'received', fiveMinutes)],
          width: 12,
        }),
        new GraphWidget({
          title: 'Events stored per project (5 min)',
          left: [search(metricNames.eventsStored, [projectDimension], 'stored', fiveMinutes)],
          width: 12,
        }),
      );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Ingest queue depth',
        left: [
          props.ingestQueue.metricApproximateNumberOfMessagesVisible({
            period: oneMinute,
            statistic: Stats.MAXIMUM,
          }),
          props.ingestQueue.metricApproximateNumberOfMessagesNotVisible({
            period: oneMinute,
            statistic: Stats.MAXIMUM,
          }),
        ],
        width: 8,
      }),
      new GraphWidget({
        title: 'Ingest queue age of oldest message (s)',
        left: [oldestMessageAge],
        leftAnnotations: [{ value: maxQueueAge.toSeconds(), label: 'alarm' }],
        width: 8,
      }),
      new GraphWidget({
        title: 'Dead-letter queue depth',
        left: [deadLetters, exportDeadLetters.with({ label: 'exports DLQ' })],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Function errors',
        left: perFunction((fn) => fn.metricErrors({ period: oneMinute, statistic: Stats.SUM })),
        width: 8,
      }),
      new GraphWidget({
        title: 'Function duration p99 (ms)',
        left: perFunction((fn) => fn.metricDuration({ period: oneMinute, statistic: Stats.p(99) })),
        width: 8,
      }),
      new GraphWidget({
        title: 'Function throttles',
        left: perFunction((fn) => fn.metricThrottles({ period: oneMinute, statistic: Stats.SUM })),
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests',
        left: [props.api.metricCount({ period: oneMinute, statistic: Stats.SUM })],
        right: [
          props.api.metricClientError({ period: oneMinute, statistic: Stats.SUM }),
          props.api.metricServerError({ period: oneMinute, statistic: Stats.SUM }),
        ],
        width: 12,
      }),
      new GraphWidget({
        title: 'API latency p99 (ms)',
        left: [
          props.api.metricLatency({ period: oneMinute, statistic: Stats.p(99) }),
          props.api.metricIntegrationLatency({ period: oneMinute, statistic: Stats.p(99) }),
        ],
        width: 12,
      }),
    );
  }
}
