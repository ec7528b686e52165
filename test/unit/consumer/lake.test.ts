import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { randomUUID } from 'node:crypto';
import { handToLake } from '../../../functions/consumer/lake';
import type { MessageEvents } from '../../../functions/consumer/types';
import { lakeMessageSchema, parseLakeBody } from '../../../functions/shared/queue/lake-message';

const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/test-lake';
const sqs = mockClient(SQSClient);

beforeEach(() => {
  sqs.reset();
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
});

/** One ingest message's stored events: `count` posthog-js-like pageviews of about 1 KB each. */
function message(count: number, projectId = 7): MessageEvents {
  const messageId = randomUUID();
  return {
    messageId,
    projectId,
    events: Array.from({ length: count }, (_, i) => ({
      uuid: randomUUID(),
      projectId,
      event: '$pageview',
      distinctId: `user-${i % 20}`,
      properties: {
        $current_url: `https://example.com/docs/page-${i % 37}?utm_source=newsletter`,
        $browser: 'Chrome',
        $browser_version: 131,
        $os: 'Mac OS X',
        $device_type: 'Desktop',
        $screen_height: 1117,
        $screen_width: 1728,
        $lib: 'web',
        $lib_version: '1.449.0',
        $session_id: `0193a1c2-${String(i % 5).padStart(4, '0')}-7000-8000-000000000000`,
        $referrer: 'https://www.google.com/',
        $referring_domain: 'www.google.com',
        note: 'x'.repeat(400),
      },
      timestamp: new Date(Date.UTC(2026, 10, 27, 4, 0, i)).toISOString(),
      elementsChain: '',
      createdAt: '2026-11-27T04:01:00.000Z',
    })),
  };
}

/** Each message's source as its id, for the tests that follow bodies back to their messages. */
const sourcesOfIds = (messages: readonly MessageEvents[]): Map<string, string> =>
  new Map(messages.map((one) => [one.messageId, one.messageId]));

const sentBodies = (): string[] =>
  sqs
    .commandCalls(SendMessageBatchCommand)
    .flatMap((call) => call.args[0].input.Entries ?? [])
    .map((entry) => entry.MessageBody!);

describe('the lake hand-off', () => {
  it('sends the bodies of many messages in few SendMessageBatch calls, deflated, each readable by the lake function', async () => {
    // Prepare: a consumer batch of 30 messages of 50 events (about 50 KB of JSON each)
    const messages = Array.from({ length: 30 }, () => message(50));

    // Act
    const failed = await handToLake(queueUrl, messages, sourcesOfIds(messages));

    // Assert
    expect(failed.size).toBe(0);
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.length).toBe(3); // 10 entries a call, where one call per message was 30
    const bodies = sentBodies();
    expect(bodies).toHaveLength(30);
    const payload = bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0);
    const json = messages.reduce((sum, one) => sum + JSON.stringify(one.events).length, 0);
    expect(payload).toBeLessThan(json / 4);
    const decoded = bodies.map((body) => lakeMessageSchema.parse(parseLakeBody(body)));
    expect(decoded.map((one) => one.source).sort()).toEqual(messages.map((one) => one.messageId).sort());
    const byId = new Map(messages.map((one) => [one.messageId, one]));
    for (const one of decoded)
      expect(one.events.map((event) => event.uuid)).toEqual(
        byId.get(one.source)!.events.map((event) => event.uuid),
      );
  });

  it('fails only the messages whose bodies a refused call carried', async () => {
    // Prepare: the second call is refused for good
    const messages = Array.from({ length: 20 }, () => message(5));
    let call = 0;
    sqs.on(SendMessageBatchCommand).callsFake(() => {
      call++;
      if (call === 1) return { Successful: [], Failed: [] };
      throw new Error('queue unavailable');
    });

    // Act
    const failed = await handToLake(queueUrl, messages, sourcesOfIds(messages));

    // Assert: 10 messages a call; the second call's 10 are left for SQS to deliver again
    expect(failed.size).toBe(10);
    const firstCall = sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries!;
    const handed = new Set(
      firstCall.map((entry) => lakeMessageSchema.parse(parseLakeBody(entry.MessageBody!)).source),
    );
    expect(handed.size).toBe(10);
    for (const one of messages) expect(failed.has(one.messageId)).toBe(!handed.has(one.messageId));
  });

  it('reads a JSON body as it is and refuses a corrupt deflated one', () => {
    expect(parseLakeBody('{"v":1}')).toEqual({ v: 1 });
    expect(parseLakeBody('deflate:not-base64-deflate')).toBeUndefined();
  });
});
