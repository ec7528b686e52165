import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
} from '@aws-sdk/client-sqs';
import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import type { DlqTarget } from '../../../bin/ops/dlq';
import { packLakeMessages } from '../../../functions/shared/queue/lake-message';
import {
  cloudWatchOldestAges,
  deadLetterOldestAges,
  list,
  purge,
  redrive,
  stats,
} from '../../../bin/ops/dlq';

const queues = {
  source: 'https://sqs.us-east-1.amazonaws.com/123456789012/ingest',
  dlq: 'https://sqs.us-east-1.amazonaws.com/123456789012/dlq',
};
const arn = (url: string): string => `arn:aws:sqs:us-east-1:123456789012:${url.split('/').pop()!}`;

describe('dlq on AWS (SQS mocked)', () => {
  const sqs = mockClient(SQSClient);
  const cloudWatch = mockClient(CloudWatchClient);
  const target = (): DlqTarget => ({
    sqs: new SQSClient({ region: 'us-east-1' }),
    queues,
    allQueues: { ingest: queues.source, dlq: queues.dlq },
    oldestAges: cloudWatchOldestAges(new CloudWatchClient({ region: 'us-east-1' })),
    readFailures: () => Promise.resolve([]),
  });

  beforeEach(() => {
    sqs.reset();
    cloudWatch.reset();
    cloudWatch.on(GetMetricDataCommand).resolves({ MetricDataResults: [] });
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

  it('decodes a dead-lettered lake message, deflated as the consumer sends it: project, events and source', async () => {
    // Prepare: a lake message as the hand-off packs it
    const event = (uuid: string, name: string, distinctId: string) => ({
      uuid,
      event: name,
      distinct_id: distinctId,
      timestamp: '2026-11-25T10:00:00.000Z',
      created_at: '2026-11-25T10:00:01.000Z',
      properties: { note: 'x'.repeat(200) },
      elements_chain: '',
      person_id: null,
      person_properties: null,
    });
    const {
      bodies: [body],
    } = packLakeMessages(7, 'source-digest', [event('u1', 'signup', 'ann'), event('u2', 'login', 'bob')]);
    expect(body!.startsWith('{')).toBe(false);
    sqs
      .on(ReceiveMessageCommand)
      .resolvesOnce({ Messages: [{ MessageId: 'l1', ReceiptHandle: 'r1', Body: body }] })
      .resolves({ Messages: [] });
    sqs.on(ChangeMessageVisibilityBatchCommand).resolves({});

    // Act
    const [message] = await list(target(), 10);

    // Assess
    expect(message).toMatchObject({
      messageId: 'l1',
      projectId: 7,
      lakeSource: 'source-digest',
      eventCount: 2,
      eventNames: ['signup', 'login'],
      distinctIds: ['ann', 'bob'],
    });
    expect(message!.undecodable).toBeUndefined();
  });

  it('names the dead-letter queue and its depth before asking, and purges only once confirmed', async () => {
    // Prepare
    sqs.on(GetQueueAttributesCommand).resolves({
      Attributes: {
        ApproximateNumberOfMessages: '42',
        ApproximateNumberOfMessagesNotVisible: '3',
        ApproximateNumberOfMessagesDelayed: '1',
      },
    });
    sqs.on(PurgeQueueCommand).resolves({});
    const asked: string[] = [];

    // Act
    const refused = await purge(target(), (question) => {
      asked.push(question);
      return Promise.resolve(false);
    });
    const refusedPurges = sqs.commandCalls(PurgeQueueCommand).length;
    const accepted = await purge(target(), () => Promise.resolve(true));

    // Assess
    expect(asked).toEqual([
      `Purge the dead-letter queue dlq (${queues.dlq}): 42 visible, 3 in flight and 1 delayed message(s) are deleted for good.`,
    ]);
    expect([refused, refusedPurges]).toEqual([false, 0]);
    expect(accepted).toBe(true);
    expect(sqs.commandCalls(PurgeQueueCommand).map((call) => call.args[0].input)).toEqual([
      { QueueUrl: queues.dlq },
    ]);
  });

  it('reports its own move task, never another task of the same queue', async () => {
    // Prepare: the first listing lags the start and shows only an earlier, finished task.
    const earlier = {
      TaskHandle: 'earlier-task',
      Status: 'COMPLETED',
      ApproximateNumberOfMessagesMoved: 500,
      ApproximateNumberOfMessagesToMove: 500,
    };
    sqs.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'own-task' });
    sqs
      .on(ListMessageMoveTasksCommand)
      .resolvesOnce({ Results: [earlier] })
      .resolves({
        Results: [
          {
            TaskHandle: 'own-task',
            Status: 'COMPLETED',
            ApproximateNumberOfMessagesMoved: 7,
            ApproximateNumberOfMessagesToMove: 7,
          },
          earlier,
        ],
      });
    const progress: [number, number][] = [];

    // Act
    const result = await redrive(target(), {
      pollMs: 1,
      onProgress: (moved, total) => progress.push([moved, total]),
    });

    // Assess
    expect(result).toEqual({ method: 'StartMessageMoveTask', moved: 7, failed: 0, status: 'COMPLETED' });
    expect(progress).toEqual([[7, 7]]);
  });

  it('fails naming its task when the listing never shows it, rather than reporting another', async () => {
    // Prepare
    sqs.on(StartMessageMoveTaskCommand).resolves({ TaskHandle: 'own-task' });
    sqs.on(ListMessageMoveTasksCommand).resolves({
      Results: [{ TaskHandle: 'other-task', Status: 'RUNNING', ApproximateNumberOfMessagesMoved: 1 }],
    });

    // Act, Assess
    await expect(redrive(target(), { pollMs: 1 })).rejects.toThrow('own-task is not listed');
  });

  it('reads oldest ages from CloudWatch on AWS, never receiving from any queue', async () => {
    // Prepare
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { ApproximateNumberOfMessages: '9' } });
    cloudWatch.on(GetMetricDataCommand).resolves({
      MetricDataResults: [
        { Id: 'q0', Values: [812, 790] },
        { Id: 'q1', Values: [] },
      ],
    });

    // Act
    const result = await stats(target());

    // Assess
    expect(sqs.commandCalls(ReceiveMessageCommand)).toHaveLength(0);
    expect(result.map((queue) => [queue.queue, queue.oldestAgeSeconds, queue.oldestAgeFrom])).toEqual([
      ['ingest', 812, 'cloudwatch'],
      ['dlq', null, 'cloudwatch'],
    ]);
    const input = cloudWatch.commandCalls(GetMetricDataCommand)[0]!.args[0].input;
    expect(input.MetricDataQueries!.map((query) => query.MetricStat)).toEqual(
      ['ingest', 'dlq'].map((name) => ({
        Metric: {
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateAgeOfOldestMessage',
          Dimensions: [{ Name: 'QueueName', Value: name }],
        },
        Period: 60,
        Stat: 'Maximum',
      })),
    );
    expect(input.ScanBy).toBe('TimestampDescending');
  });

  it("without CloudWatch, peeks only the dead-letter queues and leaves a live queue's age unread", async () => {
    // Prepare
    sqs.on(GetQueueAttributesCommand).resolves({ Attributes: { ApproximateNumberOfMessages: '2' } });
    sqs
      .on(ReceiveMessageCommand)
      .resolvesOnce({
        Messages: [
          {
            MessageId: 'd1',
            ReceiptHandle: 'r1',
            Body: '{}',
            Attributes: { SentTimestamp: String(Date.now() - 60_000) },
          },
        ],
      })
      .resolves({ Messages: [] });
    sqs.on(ChangeMessageVisibilityBatchCommand).resolves({});
    const sqsClient = new SQSClient({ region: 'us-east-1' });

    // Act
    const result = await stats({ ...target(), oldestAges: deadLetterOldestAges(sqsClient, ['dlq']) });

    // Assess
    expect(sqs.commandCalls(ReceiveMessageCommand).map((call) => call.args[0].input.QueueUrl)).toEqual(
      expect.arrayContaining([queues.dlq]),
    );
    expect(
      sqs.commandCalls(ReceiveMessageCommand).filter((call) => call.args[0].input.QueueUrl === queues.source),
    ).toHaveLength(0);
    expect(result.find((queue) => queue.queue === 'ingest')).toMatchObject({
      visible: 2,
      oldestAgeSeconds: null,
      oldestAgeFrom: 'not-read',
    });
    expect(result.find((queue) => queue.queue === 'dlq')).toMatchObject({
      oldestAgeSeconds: 60,
      oldestAgeFrom: 'peek',
    });
  });
});
