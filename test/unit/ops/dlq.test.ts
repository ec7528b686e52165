import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import type { DlqTarget } from '../../../bin/ops/dlq';
import { list, purge, redrive } from '../../../bin/ops/dlq';

const queues = {
  ingest: 'https://sqs.us-east-1.amazonaws.com/123456789012/ingest',
  dlq: 'https://sqs.us-east-1.amazonaws.com/123456789012/dlq',
};
const arn = (url: string): string => `arn:aws:sqs:us-east-1:123456789012:${url.split('/').pop()!}`;

describe('dlq on AWS (SQS mocked)', () => {
  const sqs = mockClient(SQSClient);
  const target = (): DlqTarget => ({
    sqs: new SQSClient({ region: 'us-east-1' }),
    queues,
    readFailures: () => Promise.resolve([]),
  });

  beforeEach(() => {
    sqs.reset();
    sqs.on(GetQueueAttributesCommand).callsFake((input: { QueueUrl: string }) => ({
      Attributes: { QueueArn: arn(input.QueueUrl) },
    }));
  });

  it('redrives with StartMessageMoveTask back to the ingest queue and polls ListMessageMoveTasks until done', async () => {
    // Prepare
    sqs.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'task-1' });
    sqs
      .on(ListMessageMoveTasksCommand)
      .resolvesOnce({
        Results: [
          {
            TaskHandle: 'task-1',
            Status: 'RUNNING',
            ApproximateNumberOfMessagesMoved: 4,
            ApproximateNumberOfMessagesToMove: 10,
          },
        ],
      })
      .resolves({
        Results: [
          {
            TaskHandle: 'task-1',
            Status: 'COMPLETED',
            ApproximateNumberOfMessagesMoved: 10,
            ApproximateNumberOfMessagesToMove: 10,
          },
        ],
      });
    const progress: [number, number][] = [];

    // Act
    const result = await redrive(target(), {
      pollMs: 1,
      onProgress: (moved, total) => progress.push([moved, total]),
    });

    // Assess
    expect(sqs.commandCalls(StartMessageMoveTaskCommand)[0]!.args[0].input).toEqual({
      SourceArn: arn(queues.dlq),
      DestinationArn: arn(queues.ingest),
    });
    expect(sqs.commandCalls(ListMessageMoveTasksCommand)[0]!.args[0].input).toMatchObject({
      SourceArn: arn(queues.dlq),
    });
    expect(progress).toEqual([
      [4, 10],
      [10, 10],
    ]);
    expect(result).toEqual({ method: 'StartMessageMoveTask', moved: 10, failed: 0, status: 'COMPLETED' });
  });

  it('reports a failed move task with its reason', async () => {
    // Prepare
    sqs.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'task-2' });
    sqs.on(ListMessageMoveTasksCommand).resolves({
      Results: [{ TaskHandle: 'task-2', Status: 'FAILED', FailureReason: 'AccessDenied' }],
    });

    // Act, Assess
    await expect(redrive(target(), { pollMs: 1 })).rejects.toThrow('AccessDenied');
  });

  it('lists without consuming: every received message is made visible again', async () => {
    // Prepare
    sqs
      .on(ReceiveMessageCommand)
      .resolvesOnce({
        Messages: [
          {
            MessageId: 'm1',
            ReceiptHandle: 'r1',
            Body: 'not json',
            Attributes: { ApproximateReceiveCount: '6' },
          },
        ],
      })
      .resolves({ Messages: [] });
    sqs.on(ChangeMessageVisibilityBatchCommand).resolves({});

    // Act
    const [message] = await list(target(), 10);

    // Assess
    expect(message).toMatchObject({ messageId: 'm1', receiveCount: 6, projectId: null });
    expect(message!.undecodable).toBeDefined();
    expect(sqs.commandCalls(ReceiveMessageCommand)[0]!.args[0].input.VisibilityTimeout).toBeLessThanOrEqual(
      5,
    );
    expect(sqs.commandCalls(ChangeMessageVisibilityBatchCommand)[0]!.args[0].input.Entries).toEqual([
      { Id: '0', ReceiptHandle: 'r1', VisibilityTimeout: 0 },
    ]);
  });

  it('refuses to purge without confirmation', async () => {
    await expect(purge(target(), false)).rejects.toThrow('--yes');
    expect(sqs.commandCalls(PurgeQueueCommand)).toHaveLength(0);
  });
});
