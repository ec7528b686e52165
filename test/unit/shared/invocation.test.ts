import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { invocationHandler } from '../../../functions/shared/invocation';
import { logger, valueAtPath } from '../../../functions/shared/logger';
import { metrics } from '../../../functions/shared/metrics';
import type { EmfCapture } from '../../helpers/emf';
import { captureEmf } from '../../helpers/emf';

const contextOf = (awsRequestId: string): Context =>
  ({
    awsRequestId,
    functionName: 'flock-consumer',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:flock-consumer',
    memoryLimitInMB: '256',
    functionVersion: '$LATEST',
    getRemainingTimeInMillis: () => 60_000,
  }) as Context;

/** The queue and schedule functions' wrapper: Lambda's context on the log lines, metrics flushed. */
describe('invocationHandler', () => {
  let emf: EmfCapture;
  let lines: string[];

  beforeEach(() => {
    emf = captureEmf();
    lines = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    });
    // The middleware puts the configured level (SILENT) back on every invocation but the first.
    jest.spyOn(logger, 'refreshSampleRateCalculation').mockImplementation(() => undefined);
    logger.setLogLevel('ERROR');
  });
  afterEach(() => {
    logger.setLogLevel('SILENT');
    emf.restore();
    jest.restoreAllMocks();
  });

  /** A handler that counts `count`, appends `key` to the logger, logs an error, then throws if told. */
  const handler = invocationHandler(
    async (event: { count: number; key?: string; fail?: boolean }): Promise<number> => {
      if (event.key) logger.appendKeys({ key: event.key });
      metrics.addMetric('Handled', MetricUnit.Count, event.count);
      logger.error('handled');
      if (event.fail) throw new Error('failed');
      return event.count;
    },
  );
  const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  it("puts Lambda's context on every line and drops the keys appended during an invocation", async () => {
    // Act
    await handler({ count: 1, key: 'first' }, contextOf('req-1'));
    await handler({ count: 1 }, contextOf('req-2'));

    // Assess
    expect(logged()).toEqual([
      expect.objectContaining({
        function_request_id: 'req-1',
        function_name: 'flock-consumer',
        cold_start: expect.any(Boolean) as unknown,
        key: 'first',
      }),
      expect.objectContaining({ function_request_id: 'req-2' }),
    ]);
    expect(logged()[1]).not.toHaveProperty('key');
  });

  it('flushes the metrics once per invocation, also when the handler throws', async () => {
    // Act
    await expect(handler({ count: 2 }, contextOf('req-1'))).resolves.toBe(2);
    await expect(handler({ count: 3, fail: true }, contextOf('req-2'))).rejects.toThrow('failed');

    // Assess
    expect(emf.blobs).toHaveLength(2);
    expect(emf.values('Handled')).toEqual([2, 3]);
    expect(metrics.hasStoredMetrics()).toBe(false);
  });

  it('writes nothing, and warns of nothing, for an invocation that counted nothing', async () => {
    // Prepare
    const quiet = invocationHandler(async () => 'done');
    const warn = jest.spyOn(console, 'warn');

    // Act
    await quiet({}, contextOf('req-1'));

    // Assess
    expect(emf.blobs).toEqual([]);
    expect(lines).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });
});

describe('valueAtPath (the correlation id search)', () => {
  it('reads a dotted path of own properties', () => {
    expect(valueAtPath('requestContext.requestId', { requestContext: { requestId: 'abc' } })).toBe('abc');
  });

  it('is undefined where the path is missing or not own', () => {
    expect(valueAtPath('requestContext.requestId', { requestContext: null })).toBeUndefined();
    expect(valueAtPath('requestContext.requestId', {})).toBeUndefined();
    expect(valueAtPath('requestContext.requestId', 'text')).toBeUndefined();
    expect(valueAtPath('requestContext.constructor', { requestContext: {} })).toBeUndefined();
    expect(valueAtPath('__proto__.toString', {})).toBeUndefined();
  });

  it('answers with the handler, never with an early timeout while the handler still works', async () => {
    // Prepare: 20 ms left on the clock, a handler that needs 60
    const handler = invocationHandler(async () => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      return 'stored';
    });
    const context: Context = { ...contextOf('late'), getRemainingTimeInMillis: () => 20 };

    // Act
    const answer = await handler({}, context);

    // Assess
    expect(answer).toBe('stored');
  });
});
