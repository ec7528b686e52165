import { chunkBySize } from '../shared/chunks';
import { forEachLimited } from '../shared/concurrency';
import type { LakeEvent } from '../shared/lake/row';
import { logger } from '../shared/logger';
import { countMetric, metricNames } from '../shared/metrics';
import { messageLimits } from '../shared/queue/definitions';
import { packLakeMessages, toLakeEvent } from '../shared/queue/lake-message';
import { sendAll } from '../shared/queue/send';
import type { StageFailures } from '../shared/stage-failures';
import { failMessages } from '../shared/stage-failures';
import type { ResolvedPersons } from './persons';
import type { MessageEvents } from './types';

/** SendMessageBatch calls in flight at once. */
const sendsInFlight = 8;

/** One message's events as lake queue bodies. */
interface Handed {
  readonly messageId: string;
  readonly bodies: readonly string[];
  readonly bodyBytes: readonly number[];
  /** Events the bodies hold. */
  readonly count: number;
}

/** One message's stored events as lake queue bodies under its source, with their persons as resolved. */
function bodiesOf(message: MessageEvents, source: string, persons: ResolvedPersons): Handed {
  // A uuid sent twice in one message is stored once (the last one): hand it over once, as stored.
  const byUuid = new Map<string, LakeEvent>();
  for (const event of message.events) byUuid.set(event.uuid, toLakeEvent(event, persons.get(event)));
  const packed = packLakeMessages(message.projectId, source, [...byUuid.values()]);
  if (packed.tooLarge > 0)
    logger.warn('Events too large for the lake queue are not in the lake', {
      messageId: message.messageId,
      count: packed.tooLarge,
    });
  if (packed.withoutPersonProperties > 0)
    logger.warn('Events handed to the lake without their person properties (too large together)', {
      messageId: message.messageId,
      count: packed.withoutPersonProperties,
    });
  return {
    messageId: message.messageId,
    bodies: packed.bodies,
    bodyBytes: packed.bodyBytes,
    count: byUuid.size - packed.tooLarge,
  };
}

const totalBytes = (handed: Handed): number => handed.bodyBytes.reduce((sum, bytes) => sum + bytes, 0);

/** A message's source (lake-sources.ts): every message of the batch has one. */
function sourceOf(sources: ReadonlyMap<string, string>, messageId: string): string {
  const source = sources.get(messageId);
  if (source === undefined) throw new Error(`No source for message ${messageId}`);
  return source;
}

/**
 * The lake hand-off (docs/lake.md): the events each message wrote go to the lake queue, as the
 * plugins left them (events they dropped were never stored), tagged with the message's source
 * (lake-sources.ts) and delayed by `delaySeconds` (the lake's settle time: the lake writer keeps a
 * hand-off only once every write that raced it has landed, functions/lake/settle.ts).
 * Only messages every earlier stage handled get here, so an event is handed over only once it is
 * stored. The bodies of several messages share one SendMessageBatch (10 entries, 1 MiB): SQS bills a
 * call by its payload, 64 KiB a request, not by its entries, and the bodies are deflated, so a batch
 * of messages costs a few requests rather than one or more each. A call that fails fails the messages
 * whose bodies it carried: SQS delivers them again, every earlier stage replays to the same state, and
 * the hand-off is tried again; the lake writer recognises a second hand-off of the same events by
 * their source (functions/shared/db/lake-claims.ts). Each event carries the person the persons stage
 * resolved it to and that person's properties after it (`persons`; PostHog's person-on-events).
 */
export async function handToLake(
  queueUrl: string,
  messages: readonly MessageEvents[],
  sources: ReadonlyMap<string, string>,
  persons: ResolvedPersons = new Map(),
  delaySeconds = 0,
): Promise<StageFailures> {
  const failed: StageFailures = new Map();
  let handedOver = 0;
  const handed = messages
    .filter((message) => message.events.length > 0)
    .map((message) => bodiesOf(message, sourceOf(sources, message.messageId), persons));
  const calls = chunkBySize(handed, totalBytes, messageLimits.maxBatchBytes, messageLimits.maxBatchEntries);
  await forEachLimited(calls, sendsInFlight, async (call) => {
    const failure = await sendAll(
      queueUrl,
      call.flatMap((one) => one.bodies),
      call.flatMap((one) => one.bodyBytes),
      delaySeconds,
    ).then(
      (sent) => (sent ? undefined : new Error('The lake queue refused the events')),
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    if (failure === undefined) {
      handedOver += call.reduce((sum, one) => sum + one.count, 0);
      return;
    }
    const messageIds = call.map((one) => one.messageId);
    logger.error('Handing events to the lake queue failed', { messageIds, reason: String(failure) });
    failMessages(failed, messageIds, failure);
  });
  countMetric(metricNames.eventsToLake, handedOver);
  return failed;
}
