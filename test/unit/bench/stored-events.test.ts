import { StoredEvents } from '../../../bench/support/stored-events';
import { metricNames, projectDimension } from '../../../functions/shared/metrics';

describe('stored events of a bench, from the consumer metrics', () => {
  it('resolves once the batches stored as many events, counting the per-project lines once', async () => {
    // Prepare
    const stored = new StoredEvents();
    stored.record({ [metricNames.eventsStored]: 5 });
    stored.reset();
    let done = false;
    const waiting = stored.waitFor(10, 60_000).then((reached) => (done = reached));

    // Act: a batch of 6 (and its per-project line, which repeats them), then a redelivery that finds
    // 1 of its 4 events stored by a batch that timed out after storing it.
    stored.record({ [metricNames.eventsStored]: 6 });
    stored.record({ [metricNames.eventsStored]: 6, [projectDimension]: '1' });
    stored.record({ stage: 'store', [metricNames.consumerStageDuration]: 3 });
    await Promise.resolve();
    const doneAfterFirst = done;
    stored.record({ [metricNames.eventsStored]: 3, [metricNames.eventsAlreadyStored]: 1 });
    await waiting;

    // Assert
    expect(doneAfterFirst).toBe(false);
    expect(done).toBe(true);
    expect(stored.count).toBe(10);
  });

  it('answers false when the events are not all stored in time', async () => {
    const stored = new StoredEvents();
    stored.record({ [metricNames.eventsStored]: 3 });
    expect(await stored.waitFor(4, 10)).toBe(false);
    expect(await stored.waitFor(3, 10)).toBe(true);
  });
});
