import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  countDropped,
  countMetric,
  countPerProject,
  metricNames,
  metrics,
} from '../../../functions/shared/metrics';
import type { EmfCapture } from '../../helpers/emf';
import { captureEmf } from '../../helpers/emf';

/** The metrics in EMF lines of their own (per project, per drop reason), written with the invocation's. */
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
    metrics.publishStoredMetrics();
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
    metrics.publishStoredMetrics();
    expect(emf.blobs).toHaveLength(10);
    expect(singleMetric.mock.calls.length).toBeLessThanOrEqual(1);
  });

  it('writes the line Powertools would write for the same count (namespace, dimensions, unit, values)', () => {
    // Prepare: the line of a Powertools single metric, built the documented way
    const powertools = metrics.singleMetric();
    powertools.addDimension('project', '7');
    powertools.addMetric(metricNames.eventsReceived, MetricUnit.Count, 3);

    // Act
    countPerProject(metricNames.eventsReceived, new Map([[7, 3]]));
    metrics.publishStoredMetrics();

    // Assess: the same blob but for its timestamp
    expect(emf.blobs).toHaveLength(2);
    const [expected, written] = emf.blobs.map(({ _aws: aws, ...rest }) => ({
      _aws: { ...aws, Timestamp: 0 },
      ...rest,
    }));
    expect(written).toEqual(expected);
    expect(Object.keys(written!)).toEqual(Object.keys(expected!));
  });

  it("writes its line without Powertools' store and serialiser, which cost several times the line", () => {
    const serialize = jest.spyOn(Metrics.prototype, 'serializeMetrics');
    countPerProject(metricNames.eventsReceived, new Map([[7, 3]]));
    countDropped('too_large', 1);
    metrics.publishStoredMetrics();
    expect(emf.blobs).toHaveLength(2);
    expect(serialize).not.toHaveBeenCalled();
  });

  it("writes them with the invocation's line in one write to stdout, which costs more than the lines", () => {
    // Prepare: what capture counts for one request
    const write = jest.spyOn(process.stdout, 'write');
    countMetric(metricNames.eventsReceived, 3);
    countPerProject(metricNames.eventsReceived, new Map([[7, 3]]));
    countDropped('invalid', 1);

    // Act
    metrics.publishStoredMetrics();

    // Assess: three EMF lines, one write
    expect(write).toHaveBeenCalledTimes(1);
    expect(emf.blobs).toHaveLength(3);
    expect(emf.total(metricNames.eventsReceived)).toBe(3);
    expect(emf.total(metricNames.eventsReceived, { project: '7' })).toBe(3);
    expect(emf.total(metricNames.eventsDropped, { reason: 'invalid' })).toBe(1);
  });

  it('writes nothing more at the next flush: each line is written once', () => {
    countPerProject(metricNames.eventsReceived, new Map([[7, 3]]));
    countMetric(metricNames.eventsQueued, 3);
    metrics.publishStoredMetrics();
    metrics.publishStoredMetrics();
    expect(emf.blobs).toHaveLength(2);
  });

  it('writes nothing where Powertools is told not to emit metrics (POWERTOOLS_METRICS_DISABLED)', async () => {
    // Prepare: the module as a function loads it with metrics turned off
    const saved = process.env.POWERTOOLS_METRICS_DISABLED;
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
    try {
      await jest.isolateModulesAsync(async () => {
        const isolated = await import('../../../functions/shared/metrics');

        // Act
        isolated.countPerProject(metricNames.eventsReceived, new Map([[7, 3]]));
        isolated.countDropped('invalid', 1);
        isolated.metrics.publishStoredMetrics();
      });
    } finally {
      if (saved === undefined) delete process.env.POWERTOOLS_METRICS_DISABLED;
      else process.env.POWERTOOLS_METRICS_DISABLED = saved;
    }

    // Assess
    expect(emf.blobs).toEqual([]);
  });
});
