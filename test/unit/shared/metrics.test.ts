import { countDropped, countPerProject, metricNames, metrics } from '../../../functions/shared/metrics';
import type { EmfCapture } from '../../helpers/emf';
import { captureEmf } from '../../helpers/emf';

/** The metrics emitted at once, in EMF lines of their own (per project, per drop reason). */
describe('metrics with dimensions of their own', () => {
  let emf: EmfCapture;

  beforeEach(() => {
    emf = captureEmf();
  });
  afterEach(() => {
    emf.restore();
    jest.restoreAllMocks();
  });

  it('writes one line per count, each with only its own dimension next to the service', () => {
    countPerProject(metricNames.eventsReceived, new Map([[7, 3]]));
    countDropped('too_large', 2);
    countPerProject(metricNames.eventsReceived, new Map([[8, 5]]));
    expect(emf.blobs).toHaveLength(3);
    expect(emf.total(metricNames.eventsReceived, { project: '7' })).toBe(3);
    expect(emf.total(metricNames.eventsDropped, { reason: 'too_large' })).toBe(2);
    expect(emf.total(metricNames.eventsReceived, { project: '8' })).toBe(5);
    expect(emf.blobs.map((blob) => blob._aws.CloudWatchMetrics[0]!.Dimensions[0])).toEqual([
      ['service', 'project'],
      ['service', 'reason'],
      ['service', 'project'],
    ]);
  });

  it('does not build a new Metrics instance (and its Console) for every line: capture emits one per request', () => {
    const singleMetric = jest.spyOn(metrics, 'singleMetric');
    for (let i = 0; i < 5; i++) {
      countPerProject(metricNames.eventsReceived, new Map([[i + 1, 1]]));
      countDropped('invalid', 1);
    }
    expect(emf.blobs).toHaveLength(10);
    expect(singleMetric.mock.calls.length).toBeLessThanOrEqual(1);
  });
});
