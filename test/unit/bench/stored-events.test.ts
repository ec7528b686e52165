import { StoredEvents } from '../../../bench/support/stored-events';
import { metricNames, projectDimension } from '../../../functions/shared/metrics';

describe('stored events of a bench, from the consumer metrics', () => {
  it('resolves once the batches stored as many events, counting the per-project lines once', async () => {
    // Prepare
    const stored = new StoredEvents();
    stored.record({ [metricNames.eventsStored]: 5 });
    stored.reset();
    let done = false;
    const waiting = stored.waitFor(10).then(() => (done = true));

    // Act: a batch of 6 (and its per-project line, which repeats them), then one of 4.
    stored.record({ [metricNames.eventsStored]: 6 });
    stored.record({ [metricNames.eventsStored]: 6, [projectDimension]: '1' });
    stored.record({ stage: 'store', [metricNames.consumerStageDuration]: 3 });
    await Promise.resolve();
    const doneAfterFirst = done;
    stored.record({ [metricNames.eventsStored]: 4 });
    await waiting;

    // Assert
    expect(doneAfterFirst).toBe(false);
    expect(done).toBe(true);
  });
});
