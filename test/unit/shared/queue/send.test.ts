import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { logger } from '../../../../functions/shared/logger';
import { sendAll } from '../../../../functions/shared/queue/send';

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
