import type { SendMessageBatchCommandOutput } from '@aws-sdk/client-sqs';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createHash } from 'node:crypto';
import { sqsClient } from '../../../../functions/shared/queue/client';

const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/test-ingest';

/** Bodies whose JSON escaping differs from plain text: quotes, backslashes, controls, non-ASCII, emoji. */
const bodies = [
  JSON.stringify({ event: 'é', properties: { path: 'C:\\x', quote: '"', nul: '\u0000', tab: '\t' } }),
  '💥 ünïcødé \u2028\u2029 </script> \u007f',
  'x'.repeat(10_000),
];

/**
 * Answers a client's SendMessageBatch in its own middleware stack, below the SDK's deserializer (which
 * then parses the answer as it would SQS's): records the request body, answers every entry as sent,
 * with its body's MD5 (the SQS client checks it).
 */
function answerLocally(client: SQSClient): {
  readonly bodies: string[];
  readonly kinds: string[];
  wrongMd5: boolean;
} {
  const local = { bodies: [] as string[], kinds: [] as string[], wrongMd5: false };
  client.middlewareStack.add(
    () => async (args) => {
      // The default codec hands over bytes, the native one a string.
      const { body } = (args as { request: { body: string | Uint8Array } }).request;
      const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
      local.bodies.push(text);
      local.kinds.push(typeof body);
      const { Entries } = JSON.parse(text) as { Entries: { Id: string; MessageBody: string }[] };
      const answer = {
        Successful: Entries.map(({ Id, MessageBody }) => ({
          Id,
          MessageId: `m-${Id}`,
          MD5OfMessageBody: createHash('md5')
            .update(local.wrongMd5 ? `${MessageBody}!` : MessageBody)
            .digest('hex'),
        })),
        Failed: [],
      };
      return {
        response: {
          statusCode: 200,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: Buffer.from(JSON.stringify(answer)),
        },
        output: undefined as never,
      };
    },
    { step: 'deserialize', priority: 'low', name: 'answerLocally' },
  );
  return local;
}

const defaultClient = new SQSClient({ useQueueUrlAsEndpoint: false });
const ours = answerLocally(sqsClient);
const theirs = answerLocally(defaultClient);

const send = (client: SQSClient): Promise<SendMessageBatchCommandOutput> =>
  client.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: bodies.map((MessageBody, i) => ({ Id: String(i), MessageBody, DelaySeconds: i })),
    }),
  );

describe('the shared SQS client', () => {
  it('has no logger middleware: nothing copies each request for a logger that drops it', () => {
    const middleware = sqsClient.middlewareStack.identify();

    expect(middleware.some((name) => name.startsWith('loggerMiddleware'))).toBe(false);
    expect(middleware.some((name) => name.startsWith('retryMiddleware'))).toBe(true);
    expect(middleware.some((name) => name.startsWith('httpSigningMiddleware'))).toBe(true);
  });

  it('resolves the middleware stack once per command class, not on every call', async () => {
    const resolve = jest.spyOn(SendMessageBatchCommand.prototype, 'resolveMiddleware');
    try {
      await send(sqsClient);
      await send(sqsClient);
      await send(sqsClient);

      expect(resolve.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      resolve.mockRestore();
    }
  });

  it('sends the same JSON as the SDK default client and reads the same answer', async () => {
    const [mine, default_] = await Promise.all([send(sqsClient), send(defaultClient)]);

    expect(JSON.parse(ours.bodies.at(-1)!)).toEqual(JSON.parse(theirs.bodies.at(-1)!));
    const sent = JSON.parse(ours.bodies.at(-1)!) as { Entries: { MessageBody: string }[] };
    expect(sent.Entries.map((entry) => entry.MessageBody)).toEqual(bodies);
    const { $metadata: _a, ...output } = mine;
    const { $metadata: _b, ...expected } = default_;
    expect(output).toEqual(expected);
    expect(output.Successful).toHaveLength(bodies.length);
    // Written by the native JSON.stringify (a string), not copied character by character into bytes.
    expect(ours.kinds.at(-1)).toBe('string');
  });

  it('still checks the MD5 of each body it sent, as the SDK does', async () => {
    ours.wrongMd5 = true;
    try {
      await expect(send(sqsClient)).rejects.toThrow(/Invalid MD5 checksum/);
    } finally {
      ours.wrongMd5 = false;
    }
  });
});
