import { forEachLimited } from '../shared/concurrency';
import type { LakeEvent } from '../shared/lake/row';
import { logger } from '../shared/logger';
import { countMetric, metricNames } from '../shared/metrics';
import { packLakeMessages, toLakeEvent } from '../shared/queue/lake-message';
import { sendAll } from '../shared/queue/send';
import type { StageFailures } from '../shared/stage-failures';
import { failMessages } from '../shared/stage-failures';
import type { MessageEvents } from './types';

/** Messages whose events are handed over at once. */
const sendsInFlight = 8;

/** Sends one message's events to the lake queue; how many were handed over. Throws if refused. */
async function handOver(queueUrl: string, message: MessageEvents): Promise<number> {
  // A uuid sent twice in one message is stored once (the last one): hand it over once, as stored.
  const byUuid = new Map<string, LakeEvent>();
  for (const event of message.events) byUuid.set(event.uuid, toLakeEvent(event));
  const packed = packLakeMessages(message.projectId, message.messageId, [...byUuid.values()]);
  if (packed.tooLarge > 0)
    logger.warn('Events too large for the lake queue are not in the lake', {
      messageId: message.messageId,
      count: packed.tooLarge,
    });
  if (!(await sendAll(queueUrl, packed.bodies, packed.bodyBytes)))
    throw new Error('The lake queue refused the events');
  return byUuid.size - packed.tooLarge;
}

/**
 * The lake hand-off (docs/lake.md): the stored events of each message go to the lake queue, as the
 * plugins left them (events they dropped were never stored), tagged with the message they came from.
 * Only messages every earlier stage handled get here, so an event is handed over only once it is
 * stored. A hand-off that fails fails its message: SQS delivers it again, every earlier stage replays
 * to the same state, and the hand-off is tried again; the lake writer recognises a second hand-off of
 * the same events by their source (functions/shared/db/lake-claims.ts).
 */
export async function handToLake(
  queueUrl: string,
  messages: readonly MessageEvents[],
): Promise<StageFailures> {
  const failed: StageFailures = new Map();
  let handedOver = 0;
  const withEvents = messages.filter((message) => message.events.length > 0);
  await forEachLimited(withEvents, sendsInFlight, (message) =>
    handOver(queueUrl, message).then(
      (count) => {
        handedOver += count;
      },
      (error: unknown) => {
        logger.error('Handing events to the lake queue failed', {
          messageId: message.messageId,
          reason: String(error),
        });
        failMessages(failed, [message.messageId], error);
      },
    ),
  );
  countMetric(metricNames.eventsToLake, handedOver);
  return failed;
}
