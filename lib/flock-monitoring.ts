import { Duration } from 'aws-cdk-lib';
import type { IHttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { IMetric, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface FlockMonitoringProps {
  readonly ingestQueue: IQueue;
  readonly deadLetterQueue: IQueue;
  readonly consumer: IFunction;
  /** The HTTP functions by group name. */
  readonly httpFunctions: Readonly<Record<string, IFunction>>;
  readonly api: IHttpApi;
  /**
   * Age of the oldest waiting event above which the consumer is considered behind.
   * @default Duration.minutes(5)
   */
  readonly maxQueueAge?: Duration;
}

const oneMinute = Duration.minutes(1);

/**
 * What ops watch: alarms on dead letters, ingest lag and consumer crashes, and one dashboard.
 * The alarms have no actions: subscribe a topic or pager to them per deployment.
 */
export class FlockMonitoring extends Construct {
  /** Any message in the DLQ is an accepted event that was not stored: redrive it (ops CLI). */
  public readonly deadLetterAlarm: Alarm;
  /** The consumer is falling behind (or not running): events wait too long to be stored. */
  public readonly queueAgeAlarm: Alarm;
  /** The consumer threw or timed out: a whole batch failed (single failed records are reported, not thrown). */
  public readonly consumerErrorsAlarm: Alarm;
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

    this.consumerErrorsAlarm = new Alarm(this, 'ConsumerErrors', {
      alarmDescription:
        'Flock: the ingest consumer threw or timed out (whole batches are being retried). Runbook (README) step 3 "The consumer is failing"',
      metric: props.consumer.metricErrors({ period: Duration.minutes(5), statistic: Stats.SUM }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });

    const functions: [string, IFunction][] = [
      ...Object.entries(props.httpFunctions),
      ['consumer', props.consumer],
    ];
    const perFunction = (metric: (fn: IFunction) => Metric): IMetric[] =>
      functions.map(([name, fn]) => metric(fn).with({ label: name }));

    this.dashboard = new Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    this.dashboard.addWidgets(
      new AlarmStatusWidget({
        title: 'Alarms',
        alarms: [this.deadLetterAlarm, this.queueAgeAlarm, this.consumerErrorsAlarm],
        width: 24,
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
      new GraphWidget({ title: 'Dead-letter queue depth', left: [deadLetters], width: 8 }),
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
