import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { logger } from '../../../../functions/shared/logger';
import { sendAll } from '../../../../functions/shared/queue/send';
import { virtualTimers } from '../../../helpers/virtual-timers';

const sqs = mockClient(SQSClient);
const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/test-ingest';

describe('sendAll', () => {
  beforeEach(() => sqs.reset());

  it('sends the bodies in one SendMessageBatch call', async () => {
    sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    await expect(sendAll(queueUrl, ['a', 'b'])).resolves.toBe(true);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(1);
    expect(sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input).toEqual({
      QueueUrl: queueUrl,
      Entries: [
        { Id: '0', MessageBody: 'a' },
        { Id: '1', MessageBody: 'b' },
      ],
    });
  });

  it('retries only the entries the queue refused', async () => {
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] })
      .resolves({ Failed: [] });
    await expect(sendAll(queueUrl, ['a', 'b'])).resolves.toBe(true);
    expect(sqs.commandCalls(SendMessageBatchCommand)[1]!.args[0].input.Entries).toEqual([
      { Id: '1', MessageBody: 'b' },
    ]);
  });

  /**
   * Answers `answers` in turn (the last one from then on); `steps` lists the calls and, between them,
   * the waits asked of the timer (which ends them at once: the waits asked are the behaviour).
   */
  const answering = (answers: { Failed: { Id: string; Code: string; SenderFault: boolean }[] }[]) => {
    const steps: (string | number)[] = [];
    let calls = 0;
    sqs.on(SendMessageBatchCommand).callsFake(() => {
      steps.push('send');
      return answers[Math.min(++calls, answers.length) - 1];
    });
    const { restore } = virtualTimers((ms) => steps.push(ms));
    return { steps, restore };
  };
  const refused = (...ids: string[]) => ({
    Failed: ids.map((Id) => ({ Id, Code: 'InternalError', SenderFault: false })),
  });

  it('backs off before retrying the refused entries, then sends them all', async () => {
    // Prepare: no jitter (factor 1), the first call refuses one entry of two, the second takes it.
    const random = jest.spyOn(Math, 'random').mockReturnValue(0.5);
    const { steps, restore } = answering([refused('1'), refused()]);

    // Act
    try {
      await expect(sendAll(queueUrl, ['a', 'b'])).resolves.toBe(true);
    } finally {
      random.mockRestore();
      restore();
    }

    // Assess: the retry came after the first wait (25 ms), with only the refused entry.
    expect(steps).toEqual(['send', 25, 'send']);
    expect(sqs.commandCalls(SendMessageBatchCommand)[1]!.args[0].input.Entries).toEqual([
      { Id: '1', MessageBody: 'b' },
    ]);
  });

  it('doubles the wait with each retry, and gives up within a bounded time when refused for good', async () => {
    // Prepare: jitter at its largest factor (1.5), every call refuses the entry.
    const random = jest.spyOn(Math, 'random').mockReturnValue(0.999);
    const { steps, restore } = answering([refused('0')]);
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);

    // Act
    try {
      await expect(sendAll(queueUrl, ['a'])).resolves.toBe(false);
    } finally {
      random.mockRestore();
      error.mockRestore();
      restore();
    }

    // Assess: three calls, 25 then 50 ms apart (× 1.5: 37.5 and 75 ms), about 113 ms of waiting in
    // all: well within a request's budget.
    expect(steps).toEqual(['send', expect.closeTo(37.5, 1), 'send', expect.closeTo(75, 1), 'send']);
  });

  it('reports failure when the queue keeps refusing', async () => {
    sqs.on(SendMessageBatchCommand).rejects(new Error('unavailable'));
    await expect(sendAll(queueUrl, ['a'])).resolves.toBe(false);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(3);
  });

  it('logs the refusal with the codes SQS gave when it gives up', async () => {
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    sqs.on(SendMessageBatchCommand).resolves({
      Failed: [{ Id: '0', Code: 'KMS.ThrottlingException', SenderFault: false }],
    });
    try {
      await expect(sendAll(queueUrl, ['a'])).resolves.toBe(false);
      expect(error).toHaveBeenCalledWith(
        expect.stringContaining('Events not queued'),
        expect.objectContaining({ messages: 1, codes: ['KMS.ThrottlingException'] }),
      );
    } finally {
      error.mockRestore();
    }
  });
});
