import { Duration } from 'aws-cdk-lib';
import type { IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { HttpGroup } from '../functions/routes';
import { metricNames } from '../functions/shared/metrics';
import type { FlockFunction } from './flock-function';

/** The functions the alarms and the dashboard watch. */
export interface MonitoredFunctions {
  /** The HTTP functions by group name. */
  readonly httpFunctions: Readonly<Record<HttpGroup, FlockFunction>>;
  readonly consumer: FlockFunction;
  readonly cohortCalculation: FlockFunction;
  readonly exports: FlockFunction;
  readonly lake: FlockFunction;
  readonly lakeCompaction: FlockFunction;
}

/**
 * Every monitored function: the HTTP groups in route-table order, then the consumer, cohorts, exports,
 * the lake writer and its upkeep job.
 */
export function allFunctions(functions: MonitoredFunctions): FlockFunction[] {
  return [
    ...Object.values(functions.httpFunctions),
    functions.consumer,
    functions.cohortCalculation,
    functions.exports,
    functions.lake,
    functions.lakeCompaction,
  ];
}

export interface FlockAlarmsProps extends MonitoredFunctions {
  readonly ingestQueue: IQueue;
  readonly deadLetterQueue: IQueue;
  readonly exportsDeadLetterQueue: IQueue;
  readonly lakeDeadLetterQueue: IQueue;
  /**
   * Age of the oldest waiting event above which the consumer is considered behind.
   * @default Duration.minutes(5)
   */
  readonly maxQueueAge?: Duration;
}

/** One alarm: what it watches, and for how many periods in a row it must breach. */
interface AlarmOn {
  readonly description: string;
  readonly metric: IMetric;
  /** @default 0: any occurrence */
  readonly threshold?: number;
  /** @default 1 */
  readonly evaluationPeriods?: number;
}

/** CloudWatch metric math takes at most 10 metrics per alarm expression. */
const maxMetricsPerAlarm = 10;
const oneMinute = Duration.minutes(1);
const fiveMinutes = Duration.minutes(5);
/** The count of something per five minutes: what every Lambda metric of the alarms is. */
const fiveMinuteSum = { period: fiveMinutes, statistic: Stats.SUM };

function chunked<T>(all: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < all.length; i += size) chunks.push(all.slice(i, i + size));
  return chunks;
}

/** The sum of `metrics` over five minutes as one expression (`m0 + m1 + …`). */
function sumOf(metrics: readonly IMetric[], label: string): MathExpression {
  return new MathExpression({
    expression: metrics.map((_, i) => `m${i}`).join(' + '),
    usingMetrics: Object.fromEntries(metrics.map((metric, i) => [`m${i}`, metric])),
    label,
    period: fiveMinutes,
  });
}

/**
 * What ops are alerted to: dead letters, ingest lag, consumer crashes, capture 5xx, failing cohort
 * calculations and throttled functions. Each alarm fires when its metric is above its threshold (0
 * unless said: any occurrence) and treats missing data as fine. The alarms have no actions: subscribe a
 * topic or pager to them per deployment. Every description names its runbook step: in the README, or
 * in the doc of the part it concerns (the lake's in docs/lake.md).
 */
export class FlockAlarms extends Construct {
  /** Any message in the DLQ is an accepted event that was not stored: redrive it (ops CLI). */
  public readonly deadLetterAlarm: Alarm;
  /** Any message in the exports DLQ is stored events an S3 Export did not deliver: fix, then redrive. */
  public readonly exportsDeadLetterAlarm: Alarm;
  /** Any message in the lake DLQ is stored events the lake writer did not write: fix, then redrive. */
  public readonly lakeDeadLetterAlarm: Alarm;
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
  /** Age of the oldest waiting event above which `queueAgeAlarm` fires. */
  public readonly maxQueueAge: Duration;
  /** Every alarm above. */
  public readonly all: readonly Alarm[];

  constructor(scope: Construct, id: string, props: FlockAlarmsProps) {
    super(scope, id);
    const maxQueueAge = props.maxQueueAge ?? Duration.minutes(5);
    this.maxQueueAge = maxQueueAge;
    const maximumPerMinute = { period: oneMinute, statistic: Stats.MAXIMUM };

    this.deadLetterAlarm = this.alarm('DeadLetterQueueNotEmpty', {
      description:
        'Flock: events are waiting in the dead-letter queue. Runbook (README) step 1 "The DLQ alarm fired": ' +
        'npm run flock -- dlq list, fix the cause, then dlq redrive',
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible(maximumPerMinute),
    });

    this.exportsDeadLetterAlarm = this.alarm('ExportsDeadLetterQueueNotEmpty', {
      description:
        'Flock: exports are waiting in the exports dead-letter queue (stored events an S3 Export did not deliver). ' +
        'Runbook (README) step 8 "The exports DLQ alarm fired"',
      metric: props.exportsDeadLetterQueue.metricApproximateNumberOfMessagesVisible(maximumPerMinute),
    });

    this.lakeDeadLetterAlarm = this.alarm('LakeDeadLetterQueueNotEmpty', {
      description:
        'Flock: lake messages are waiting in the lake dead-letter queue (stored events the lake writer failed to write 5 times; ingestion is not affected). ' +
        'Runbook (README) step 9 "The lake DLQ alarm fired"',
      metric: props.lakeDeadLetterQueue.metricApproximateNumberOfMessagesVisible(maximumPerMinute),
    });

    this.queueAgeAlarm = this.alarm('IngestQueueBacklog', {
      description: `Flock: the oldest queued event has waited more than ${maxQueueAge.toSeconds()} s; the consumer is behind. Runbook (README) step 2 "The queue is backing up"`,
      metric: props.ingestQueue.metricApproximateAgeOfOldestMessage(maximumPerMinute),
      threshold: maxQueueAge.toSeconds(),
      // Three minutes in a row: a short spike after a burst is not lag.
      evaluationPeriods: 3,
    });

    // Lambda's Errors count a batch whose every record failed too: the consumer throws then
    // (functions/shared/queue/batch-failure.ts) rather than answer a partial response listing them all.
    this.consumerErrorsAlarm = this.alarm('ConsumerErrors', {
      description:
        'Flock: the ingest consumer threw, timed out or failed every record of a batch (whole batches are being retried). Runbook (README) step 3 "The consumer is failing"',
      metric: props.consumer.metricErrors(fiveMinuteSum),
    });

    const capture = props.httpFunctions.capture;
    this.captureServerErrorsAlarm = this.alarm('CaptureServerErrors', {
      description:
        'Flock: capture answered 5xx (SDKs retry, events wait on devices). Runbook (README) step 5 "Capture answers 5xx"',
      metric: sumOf(
        [
          capture.metricEmitted(metricNames.httpServerErrors, { period: fiveMinutes }),
          capture.metricErrors(fiveMinuteSum),
          capture.metricThrottles(fiveMinuteSum),
        ],
        'capture 5xx, crashes and throttles',
      ),
    });

    this.cohortCalculationAlarm = this.alarm('CohortCalculationFailures', {
      description:
        'Flock: cohort calculations failed for 15 minutes (cohort counts and members are stale). Runbook (README) step 7 "Cohort calculations fail"',
      metric: sumOf(
        [
          props.cohortCalculation.metricEmitted(metricNames.cohortCalculationFailures, {
            period: fiveMinutes,
          }),
          props.cohortCalculation.metricErrors(fiveMinuteSum),
        ],
        'cohort calculation failures and crashes',
      ),
      // A failing cohort is retried every minute: three periods in a row is a lasting fault.
      evaluationPeriods: 3,
    });

    this.throttleAlarms = chunked(allFunctions(props), maxMetricsPerAlarm).map((group, index) =>
      this.alarm(index === 0 ? 'FunctionThrottles' : `FunctionThrottles${index + 1}`, {
        description: `Flock: Lambda throttled ${group.map((fn) => fn.serviceName).join(', ')}. Runbook (README) step 6 "Functions are throttled"`,
        metric: sumOf(
          group.map((fn) => fn.metricThrottles(fiveMinuteSum)),
          'throttles',
        ),
      }),
    );

    this.all = [
      this.deadLetterAlarm,
      this.exportsDeadLetterAlarm,
      this.lakeDeadLetterAlarm,
      this.queueAgeAlarm,
      this.consumerErrorsAlarm,
      this.captureServerErrorsAlarm,
      this.cohortCalculationAlarm,
      ...this.throttleAlarms,
    ];
  }

  /** The one shape of every Flock alarm: above the threshold for `evaluationPeriods`, missing data fine. */
  private alarm(id: string, { description, metric, threshold = 0, evaluationPeriods = 1 }: AlarmOn): Alarm {
    return new Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}
