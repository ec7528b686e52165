import type { DeadMessage, QueueStats } from './dlq';
import { printable } from './terminal-text';

/**
 * What `dlq list`, `show` and `stats` print for a person. Every field that a client or an endpoint
 * chose (event names, distinct ids, error names and messages, an undecodable body's reason) goes
 * through `printable`, so none of it can drive the operator's terminal or forge a line.
 */
const listed = (values: readonly string[]): string => values.map(printable).join(', ') || '-';

export const describeMessage = (message: DeadMessage): string =>
  [
    `${printable(message.messageId)}  project ${message.projectId ?? '?'}  ${message.eventCount} event(s)  ${message.sizeBytes} B  ` +
      `first sent ${message.firstSent ?? '?'}  received ${message.receiveCount}×`,
    `  events: ${listed(message.eventNames)}   distinct ids: ${listed(message.distinctIds)}`,
    ...(message.undecodable ? [`  undecodable: ${printable(message.undecodable)}`] : []),
    ...(message.failures.length === 0
      ? ['  no failure record (older than the records, or never processed)']
      : message.failures.map(
          (failure) =>
            `  attempt ${failure.attempt} at ${printable(failure.at)}: ${printable(failure.errorName)}: ${printable(failure.errorMessage)}`,
        )),
  ].join('\n');

const oldest = (queue: QueueStats): string => {
  if (queue.oldestAgeFrom === 'not-read') return 'not read (a live queue: reading it would receive from it)';
  return queue.oldestAgeSeconds === null ? '-' : `${queue.oldestAgeSeconds}s`;
};

export const describeQueue = (queue: QueueStats): string =>
  `${queue.queue.padEnd(11)} visible ${queue.visible}  in flight ${queue.inFlight}  delayed ${queue.delayed}  ` +
  `oldest ${oldest(queue)}`;
