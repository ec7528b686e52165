import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { metricNames } from '../../functions/shared/metrics';

/** The counts the summary line adds up from the functions' EMF metrics. */
const counted = [
  metricNames.eventsReceived,
  metricNames.eventsStored,
  metricNames.eventsDuplicate,
  metricNames.eventsAlreadyStored,
  metricNames.eventsDropped,
  metricNames.failedMessages,
] as const;

type Counts = Record<(typeof counted)[number], number>;

const zero = (): Counts => ({
  EventsReceived: 0,
  EventsStored: 0,
  EventsDuplicate: 0,
  EventsAlreadyStored: 0,
  EventsDropped: 0,
  FailedMessages: 0,
});

/** The events stored once although sent again, as the summary line says them; empty if none. */
const repeats = (counts: Counts): string =>
  [
    counts.EventsDuplicate > 0 ? `${counts.EventsDuplicate} duplicate in a batch` : '',
    counts.EventsAlreadyStored > 0 ? `${counts.EventsAlreadyStored} already stored` : '',
  ]
    .filter(Boolean)
    .map((part) => `, ${part}`)
    .join('');

/** The metric names a blob declares, and whether it carries a per-project dimension (counted twice otherwise). */
function declared(blob: Record<string, unknown>): { names: string[]; perProject: boolean } {
  const directives =
    (blob._aws as { CloudWatchMetrics?: { Dimensions?: string[][]; Metrics?: { Name: string }[] }[] })
      ?.CloudWatchMetrics ?? [];
  return {
    names: directives.flatMap((directive) => (directive.Metrics ?? []).map((metric) => metric.Name)),
    perProject: directives.some((directive) => (directive.Dimensions ?? []).flat().includes('project')),
  };
}

const sum = (value: unknown): number =>
  Array.isArray(value) ? value.reduce((total: number, item) => total + Number(item), 0) : Number(value) || 0;

/**
 * `npm start`'s pipeline line: every few seconds while events flow, what the functions' own metrics
 * say happened since the last line (received by capture, stored by the consumer, sent again and
 * stored once, dropped, failed)
 * and the dead-letter queue's depth. Quiet while nothing happens.
 */
export class PipelineSummary {
  private window: Counts = zero();
  private readonly total: Counts = zero();
  private dropReasons = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sqs: SQSClient,
    private readonly deadLetterQueueUrl: string,
    private readonly print: (line: string) => void,
  ) {}

  /** One EMF blob a function wrote. Per-project blobs repeat the totals, so they are skipped. */
  record(blob: Record<string, unknown>): void {
    const { names, perProject } = declared(blob);
    if (perProject) return;
    for (const name of counted) {
      if (!names.includes(name)) continue;
      const value = sum(blob[name]);
      this.window[name] += value;
      this.total[name] += value;
      if (name === metricNames.eventsDropped) {
        const reason = typeof blob.reason === 'string' ? blob.reason : 'unknown';
        this.dropReasons.set(reason, (this.dropReasons.get(reason) ?? 0) + value);
      }
    }
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Prints the line if anything happened since the last one. */
  async flush(): Promise<void> {
    const window = this.window;
    if (Object.values(window).every((value) => value === 0)) return;
    const reasons = [...this.dropReasons].map(([reason, count]) => `${count} ${reason}`).join(', ');
    this.window = zero();
    this.dropReasons = new Map();
    this.print(
      [
        `pipeline: ${window.EventsReceived} received, ${window.EventsStored} stored${repeats(window)}`,
        window.EventsDropped > 0 ? `, ${window.EventsDropped} dropped (${reasons})` : '',
        window.FailedMessages > 0 ? `, ${window.FailedMessages} message(s) left for retry` : '',
        `; DLQ depth ${await this.deadLetterDepth()}`,
        ` (since start: ${this.total.EventsReceived} received, ${this.total.EventsStored} stored${repeats(this.total)})`,
      ].join(''),
    );
  }

  private async deadLetterDepth(): Promise<string> {
    try {
      const { Attributes } = await this.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: this.deadLetterQueueUrl,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      );
      return Attributes?.ApproximateNumberOfMessages ?? '?';
    } catch {
      return '?';
    }
  }
}
