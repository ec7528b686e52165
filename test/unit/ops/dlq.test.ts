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
import { list, purge, redrive, stats } from '../../../bin/ops/dlq';

const queues = {
  source: 'https://sqs.us-east-1.amazonaws.com/123456789012/ingest',
  dlq: 'https://sqs.us-east-1.amazonaws.com/123456789012/dlq',
};
const arn = (url: string): string => `arn:aws:sqs:us-east-1:123456789012:${url.split('/').pop()!}`;

describe('dlq on AWS (SQS mocked)', () => {
  const sqs = mockClient(SQSClient);
  const target = (): DlqTarget => ({
    sqs: new SQSClient({ region: 'us-east-1' }),
    queues,
    allQueues: { ingest: queues.source, dlq: queues.dlq },
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
      DestinationArn: arn(queues.source),
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

  it('reports every queue of the stacks in stats, the exports queue and its DLQ included', async () => {
    // Prepare
    const all = {
      ingest: queues.source,
      dlq: queues.dlq,
      exports: 'https://sqs.us-east-1.amazonaws.com/123456789012/exports',
      'exports-dlq': 'https://sqs.us-east-1.amazonaws.com/123456789012/exports-dlq',
    };
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { ApproximateNumberOfMessages: '3' } });
    sqs.on(ReceiveMessageCommand).resolves({ Messages: [] });

    // Act
    const result = await stats({ ...target(), allQueues: all });

    // Assess
    expect(result.map((queue) => [queue.queue, queue.url, queue.visible])).toEqual(
      Object.entries(all).map(([name, url]) => [name, url, 3]),
    );
  });

  it('decodes a dead-lettered exports message: project, config, events and distinct ids', async () => {
    // Prepare
    const event = (uuid: string, name: string, distinctId: string) => ({
      uuid,
      event: name,
      distinct_id: distinctId,
      team_id: 7,
      timestamp: '2026-11-25T10:00:00.000Z',
      ip: null,
      properties: {},
    });
    const body = JSON.stringify({
      v: 1,
      project_id: 7,
      plugin_config_id: 12,
      source: 'ingest-message-1',
      events: [event('u1', 'signup', 'ann'), event('u2', 'login', 'ann')],
    });
    sqs
      .on(ReceiveMessageCommand)
      .resolvesOnce({ Messages: [{ MessageId: 'x1', ReceiptHandle: 'r1', Body: body }] })
      .resolves({ Messages: [] });
    sqs.on(ChangeMessageVisibilityBatchCommand).resolves({});

    // Act
    const [message] = await list(target(), 10);

    // Assess
    expect(message).toMatchObject({
      messageId: 'x1',
      projectId: 7,
      pluginConfigId: 12,
      eventCount: 2,
      eventNames: ['signup', 'login'],
      distinctIds: ['ann'],
    });
    expect(message!.undecodable).toBeUndefined();
  });

  it('refuses to purge without confirmation', async () => {
    await expect(purge(target(), false)).rejects.toThrow('--yes');
    expect(sqs.commandCalls(PurgeQueueCommand)).toHaveLength(0);
  });
});
