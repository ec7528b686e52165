import { StageDurations } from '../../../bench/support/stage-durations';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricNames, metrics, recordStageDuration } from '../../../functions/shared/metrics';
import { captureEmf } from '../../helpers/emf';

describe('StageDurations', () => {
  it('adds up the consumer stage durations per event from the EMF lines the stages write', () => {
    // Prepare
    const durations = new StageDurations();

    // Act: two batches' stage lines, as the consumer writes them, among other metrics.
    const emf = captureEmf();
    try {
      recordStageDuration('persons', 30);
      recordStageDuration('store', 10);
      recordStageDuration('persons', 50);
      metrics.addMetric(metricNames.eventsStored, MetricUnit.Count, 200);
      metrics.publishStoredMetrics();
    } finally {
      emf.restore();
    }
    for (const blob of emf.blobs) durations.record(blob);

    // Assert
    expect(durations.batches).toBe(2);
    expect(durations.perEvent(200)).toEqual({ persons: 0.4, store: 0.05 });
  });

  it('forgets what it recorded on reset (a warm-up)', () => {
    const durations = new StageDurations();
    durations.record({ stage: 'store', [metricNames.consumerStageDuration]: 5 });
    durations.reset();
    expect(durations.batches).toBe(0);
    expect(durations.perEvent(1)).toEqual({});
  });
});
