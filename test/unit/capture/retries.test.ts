import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { handler } from '../../../functions/capture/handler';
import { captureLimits } from '../../../functions/shared/queue/definitions';
import { captureMessageSchema } from '../../../functions/shared/queue/message';
import { invoke, jsJsonRequest } from './events';
import { givenProjectToken, queuedMessages, resetMocks, sqs, uniqueToken, uuidV7 } from './mocks';

/**
 * A request whose events fill several queue messages can be answered 503 after some of them were
 * queued; the SDK then sends the whole request again. Events keyed by uuid collapse downstream, so
 * every event must get the same uuid both times, also when the client sent none.
 */
describe('capture: an SDK retry after a partial 503 queues the same events again', () => {
  let token: string;

  beforeEach(() => {
    resetMocks();
    token = uniqueToken();
    givenProjectToken(token);
  });

  /** posthog-python and other server SDKs without uuids: every event has its own timestamp. */
  const batch = Array.from({ length: captureLimits.maxEventsPerMessage + 1 }, (_, i) => ({
    event: 'order placed',
    distinct_id: `customer-${i % 7}`,
    timestamp: new Date(Date.UTC(2026, 10, 24, 10, 0, 0, i)).toISOString(),
    properties: { n: i },
  }));

  it('gives each uuid-less event with a timestamp the same uuid on the retry', async () => {
    // Prepare: the second message is refused on every attempt of the first request.
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({ Successful: [], Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] })
      .resolvesOnce({ Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] })
      .resolvesOnce({ Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }] })
      .resolves({});

    // Act
    const first = await invoke(handler, jsJsonRequest({ api_key: token, batch }, '/batch/'));
    const queuedFirst = queuedMessages().flatMap((message) => message.events.map((event) => event.uuid));
    const callsOfFirst = sqs.commandCalls(SendMessageBatchCommand).length;
    const retry = await invoke(handler, jsJsonRequest({ api_key: token, batch }, '/batch/'));

    // Assess
    expect(first.statusCode).toBe(503);
    expect(retry.statusCode).toBe(200);
    const retried = sqs
      .commandCalls(SendMessageBatchCommand)
      .slice(callsOfFirst)
      .flatMap((call) => call.args[0].input.Entries ?? [])
      .flatMap((entry) =>
        captureMessageSchema.parse(JSON.parse(entry.MessageBody!)).events.map((event) => event.uuid),
      );
    expect(retried).toHaveLength(batch.length);
    expect(new Set(retried).size).toBe(batch.length);
    for (const uuid of queuedFirst.slice(0, captureLimits.maxEventsPerMessage))
      expect(retried).toContain(uuid);
  });

  it('still gives distinct events distinct uuids, and an event without a timestamp a fresh UUIDv7', async () => {
    // Act
    await invoke(
      handler,
      jsJsonRequest(
        {
          api_key: token,
          batch: [
            { event: 'a', distinct_id: 'd', timestamp: '2026-11-24T10:00:00.000Z' },
            { event: 'a', distinct_id: 'd', timestamp: '2026-11-24T10:00:00.001Z' },
            { event: 'a', distinct_id: 'e', timestamp: '2026-11-24T10:00:00.000Z' },
            { event: 'a', distinct_id: 'd' },
            { event: 'a', distinct_id: 'd' },
          ],
        },
        '/batch/',
      ),
    );

    // Assess
    const uuids = queuedMessages().flatMap((message) => message.events.map((event) => event.uuid));
    expect(new Set(uuids).size).toBe(5);
    expect(uuids.slice(3)).toEqual([expect.stringMatching(uuidV7), expect.stringMatching(uuidV7)]);
  });
});
