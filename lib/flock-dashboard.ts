import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IMetric, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { AlarmStatusWidget, Dashboard, GraphWidget, MathExpression, Stats } from 'aws-cdk-lib/aws-cloudwatch';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { metricNames, metricsNamespace, projectDimension, stageDimension } from '../functions/shared/metrics';
import type { FlockAlarms, MonitoredFunctions } from './flock-alarms';
import { allFunctions } from './flock-alarms';
import type { FlockFunction } from './flock-function';

export interface FlockDashboardProps extends MonitoredFunctions {
  /** Drawn in the alarm status row; their queue metrics are drawn as they alarm on them. */
  readonly alarms: FlockAlarms;
  readonly ingestQueue: IQueue;
  readonly exportsDeadLetterQueue: IQueue;
  readonly lakeQueue: IQueue;
  readonly api: IHttpApi;
  /**
   * Draw the per-project event counts (the functions emit them unless the stack turns them off).
   * @default true
   */
  readonly projectMetrics?: boolean;
}

const oneMinute = Duration.minutes(1);
const fiveMinutes = Duration.minutes(5);
const sumPerMinute = { period: oneMinute, statistic: Stats.SUM };
const maximumPerMinute = { period: oneMinute, statistic: Stats.MAXIMUM };
const p99PerMinute = { period: oneMinute, statistic: Stats.p(99) };

/**
 * Every series of `metricName` split by its dimensions (one line per value): a SEARCH expression.
 * `dimensions` are the metric's full dimension set besides `service`.
 */
function search(
  metricName: string,
  dimensions: readonly string[],
  label: string,
  period = oneMinute,
  statistic = 'Sum',
): MathExpression {
  return new MathExpression({
    expression: `SEARCH('{${[metricsNamespace, 'service', ...dimensions].join(',')}} MetricName="${metricName}"', '${statistic}', ${period.toSeconds()})`,
    usingMetrics: {},
    label,
    period,
  });
}

/** A queue's messages waiting and in flight. */
function queueDepth(title: string, queue: IQueue, width: number): GraphWidget {
  return new GraphWidget({
    title,
    left: [
      queue.metricApproximateNumberOfMessagesVisible(maximumPerMinute),
      queue.metricApproximateNumberOfMessagesNotVisible(maximumPerMinute),
    ],
    width,
  });
}

/**
 * One CloudWatch dashboard: the alarms' status, where every event went, latency, queues, the functions'
 * errors, durations and throttles, and the API's requests and latency.
 */
export class FlockDashboard extends Construct {
  public readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: FlockDashboardProps) {
    super(scope, id);
    const { httpFunctions, consumer, cohortCalculation, exports, lake, alarms } = props;
    const { capture, flags } = httpFunctions;
    const functions = allFunctions(props);
    /** One line per function, labelled with its service name. */
    const perFunction = (metric: (fn: FlockFunction) => Metric): IMetric[] =>
      functions.map((fn) => metric(fn).with({ label: fn.serviceName }));
    /** Per-minute sums of metrics the functions emit, each labelled `<metric> (<service>)`. */
    const emitted = (...series: [FlockFunction, string][]): IMetric[] =>
      series.map(([fn, metricName]) => fn.metricEmitted(metricName));
    const percentile = (fn: FlockFunction, metricName: string, p: number, label: string): IMetric =>
      fn.metricEmitted(metricName, { statistic: Stats.p(p), label });

    this.dashboard = new Dashboard(this, 'Resource', { defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: [...alarms.all], width: 24 }));
    // Where every event went: received and queued by capture; stored, sent again (a duplicate within a
    // batch, or already stored before it: neither is stored twice nor counted as stored) and dropped by
    // the consumer.
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Events (per minute)',
        left: emitted(
          [capture, metricNames.eventsReceived],
          [capture, metricNames.eventsQueued],
          [consumer, metricNames.eventsStored],
          [consumer, metricNames.eventsDuplicate],
          [consumer, metricNames.eventsAlreadyStored],
          [consumer, metricNames.eventsToExport],
          [exports, metricNames.eventsExported],
        ),
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
          ...emitted(
            [capture, metricNames.queueSendFailures],
            [consumer, metricNames.failedMessages],
            [consumer, metricNames.failedBatches],
            [consumer, metricNames.deadLettered],
          ),
          search(metricNames.httpServerErrors, [], '5xx'),
          ...emitted(
            [cohortCalculation, metricNames.cohortCalculationFailures],
            [exports, metricNames.exportFailures],
          ),
        ],
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Capture and decide latency (ms)',
        left: [
          percentile(capture, metricNames.captureLatency, 50, 'capture p50'),
          percentile(capture, metricNames.captureLatency, 99, 'capture p99'),
          percentile(flags, metricNames.decideLatency, 50, 'decide p50'),
          percentile(flags, metricNames.decideLatency, 99, 'decide p99'),
        ],
        width: 24,
      }),
    );
    // Where a consumer batch spends its time, stage by stage (docs/consumer.md), and the best-effort
    // stages that failed (their messages went on).
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Consumer stage duration per batch (ms, average)',
        left: [search(metricNames.consumerStageDuration, [stageDimension], 'stage', oneMinute, 'Average')],
        width: 12,
      }),
      new GraphWidget({
        title: 'Best-effort consumer stages failed',
        left: [search(metricNames.consumerStageFailures, [stageDimension], 'failed')],
        width: 12,
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
      queueDepth('Ingest queue depth', props.ingestQueue, 8),
      new GraphWidget({
        title: 'Ingest queue age of oldest message (s)',
        left: [alarms.queueAgeAlarm.metric],
        leftAnnotations: [{ value: alarms.maxQueueAge.toSeconds(), label: 'alarm' }],
        width: 8,
      }),
      new GraphWidget({
        title: 'Dead-letter queue depth',
        left: [
          alarms.deadLetterAlarm.metric,
          props.exportsDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
            ...maximumPerMinute,
            label: 'exports DLQ',
          }),
          alarms.lakeDeadLetterAlarm.metric,
        ],
        width: 8,
      }),
    );
    // The lake (docs/lake.md): what the consumer hands over and the lake writer writes, how long the
    // lake queue's events wait (up to a schedule period is normal: the writer drains it on its
    // schedule), and how long a run (its flushes) takes.
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Lake: events and files (per minute)',
        left: emitted(
          [consumer, metricNames.eventsToLake],
          [lake, metricNames.lakeEventsWritten],
          [lake, metricNames.lakeDuplicates],
        ),
        right: emitted([lake, metricNames.lakeFiles]),
        width: 6,
      }),
      queueDepth('Lake queue depth', props.lakeQueue, 6),
      new GraphWidget({
        title: 'Lake queue age of oldest message (s)',
        left: [props.lakeQueue.metricApproximateAgeOfOldestMessage(maximumPerMinute)],
        width: 6,
      }),
      new GraphWidget({
        title: 'Lake writer run duration (ms)',
        left: [
          lake.metricDuration({ period: fiveMinutes, statistic: Stats.AVERAGE, label: 'average' }),
          lake.metricDuration({ period: fiveMinutes, statistic: Stats.MAXIMUM, label: 'maximum' }),
        ],
        width: 6,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Function errors',
        left: perFunction((fn) => fn.metricErrors(sumPerMinute)),
        width: 8,
      }),
      new GraphWidget({
        title: 'Function duration p99 (ms)',
        left: perFunction((fn) => fn.metricDuration(p99PerMinute)),
        width: 8,
      }),
      new GraphWidget({
        title: 'Function throttles',
        left: perFunction((fn) => fn.metricThrottles(sumPerMinute)),
        width: 8,
      }),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'API requests',
        left: [props.api.metricCount(sumPerMinute)],
        right: [props.api.metricClientError(sumPerMinute), props.api.metricServerError(sumPerMinute)],
        width: 12,
      }),
      new GraphWidget({
        title: 'API latency p99 (ms)',
        left: [props.api.metricLatency(p99PerMinute), props.api.metricIntegrationLatency(p99PerMinute)],
        width: 12,
      }),
    );
  }
}
