import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { PipelineSummary } from '../../../bin/local/pipeline-summary';

const sqs = mockClient(SQSClient);

/** An EMF blob as Powertools writes it. */
const blob = (values: Record<string, number>, dimensions: Record<string, string> = {}) => ({
  _aws: {
    Timestamp: 0,
    CloudWatchMetrics: [
      {
        Namespace: 'Flock',
        Dimensions: [['service', ...Object.keys(dimensions)]],
        Metrics: Object.keys(values).map((Name) => ({ Name, Unit: 'Count' })),
      },
    ],
  },
  service: 'flock',
  ...dimensions,
  ...values,
});

describe('PipelineSummary', () => {
  beforeEach(() => {
    sqs.reset();
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { ApproximateNumberOfMessages: '2' } });
  });

  it('adds up what the functions reported since the last line, with the DLQ depth', async () => {
    // Prepare
    const lines: string[] = [];
    const summary = new PipelineSummary(new SQSClient({ region: 'us-east-1' }), 'dlq-url', (line) =>
      lines.push(line),
    );

    // Act: capture twice, the consumer once; per-project blobs repeat totals and are not added again.
    summary.record(blob({ EventsReceived: 3, EventsQueued: 2 }));
    summary.record(blob({ EventsReceived: 3 }, { project: '1' }));
    summary.record(blob({ EventsDropped: 1 }, { reason: 'invalid' }));
    summary.record(blob({ EventsReceived: 4 }));
    summary.record(blob({ EventsStored: 5, FailedMessages: 1 }));
    await summary.flush();
    await summary.flush(); // nothing new: no line
    summary.record(blob({ EventsStored: 1 }));
    await summary.flush();

    // Assess
    expect(lines).toEqual([
      'pipeline: 7 received, 5 stored, 1 dropped (1 invalid), 1 message(s) left for retry; DLQ depth 2 (since start: 7 received, 5 stored)',
      'pipeline: 0 received, 1 stored; DLQ depth 2 (since start: 7 received, 6 stored)',
    ]);
    expect(sqs.commandCalls(GetQueueAttributesCommand)[0]!.args[0].input.QueueUrl).toBe('dlq-url');
  });
});
