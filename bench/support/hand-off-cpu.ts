import type { StoredEvent } from '../../functions/shared/domain/event';
import { propertiesTextOf } from '../../functions/shared/domain/event';
import { withInitialAndUtmProperties } from '../../functions/shared/domain/properties';
import { packLakeMessages, toLakeEvent } from '../../functions/shared/queue/lake-message';
import { sampleEvent } from '../lib';

const perMessage = 100;

/**
 * The consumer's CPU, in µs per event, to turn stored events into lake queue bodies (lake.ts:
 * `toLakeEvent` with the event's person, `packLakeMessages`: the JSON and its deflate), for messages
 * of 100 events of the bench's mix, each with its person's properties (the `$initial_…` the mix
 * sets; a person object of its own per event, where the consumer shares one between a person's events
 * that change nothing). Process CPU time, so a loaded machine weighs on it little; the sends to SQS
 * are not in it.
 */
export function handOffPackingCpu(messages: number): number {
  const events: StoredEvent[] = Array.from({ length: perMessage }, (_, i) => {
    const sample = sampleEvent(i);
    return {
      uuid: sample.uuid as string,
      projectId: 1,
      event: sample.event as string,
      distinctId: sample.distinct_id as string,
      timestamp: sample.timestamp as string,
      createdAt: sample.timestamp as string,
      elementsChain: '',
      properties: withInitialAndUtmProperties(sample.event as string, { ...(sample.properties as object) }),
    };
  });
  const personOf = (event: StoredEvent) => ({
    personId: event.distinctId,
    properties: { ...(event.properties.$set_once as object) },
  });
  // Each message's events with properties objects of their own, and their JSON text written, before
  // the clock starts: in the consumer the store writes that text (propertiesTextOf) before the
  // hand-off reuses it, so it is the store's cost, not this figure's.
  const fresh = (): StoredEvent[] =>
    events.map((event) => {
      const copy = { ...event, properties: { ...event.properties } };
      propertiesTextOf(copy);
      return copy;
    });
  const pack = (batch: readonly StoredEvent[]): number =>
    packLakeMessages(
      1,
      'bench-source',
      batch.map((event) => toLakeEvent(event, personOf(event))),
    ).bodies.length;
  for (let warm = 0; warm < 10; warm++) pack(fresh());
  const batches = Array.from({ length: messages }, fresh);
  const began = process.cpuUsage();
  for (const batch of batches) pack(batch);
  const { user, system } = process.cpuUsage(began);
  return (user + system) / (messages * perMessage);
}
