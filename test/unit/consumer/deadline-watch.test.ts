import type { Context } from 'aws-lambda';
import { watchDeadline } from '../../../functions/consumer/deadline-watch';
import { Stages } from '../../../functions/consumer/stages';
import { logger } from '../../../functions/shared/logger';

/** A Lambda context whose deadline is `timeoutMs` from now (on the faked clock). */
function contextWithin(timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return { getRemainingTimeInMillis: () => deadline - Date.now() } as Context;
}

describe('the consumer deadline watch', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });

  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('names the stages still running 2 s before the deadline, longest-running first', async () => {
    // Prepare: a persons stage that never ends, and an export hand-off started a second later
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const stages = new Stages();
    const messages = [{ messageId: 'm-1' }];
    const stop = watchDeadline(contextWithin(30_000), 1);
    let end = (): void => undefined;
    const endless = new Promise<void>((resolve) => (end = resolve));
    const persons = stages.required('persons', messages, () => endless);
    await jest.advanceTimersByTimeAsync(1_000);
    const exports = stages.required('exports', messages, () => endless);

    // Act
    await jest.advanceTimersByTimeAsync(26_999);
    const before = error.mock.calls.length;
    await jest.advanceTimersByTimeAsync(1);

    // Assess
    expect(before).toBe(0);
    expect(error).toHaveBeenCalledTimes(1);
    expect(error).toHaveBeenCalledWith('Consumer invocation near its deadline', {
      remainingMs: 2_000,
      records: 1,
      stages: [
        { stage: 'persons', runningMs: 28_000 },
        { stage: 'exports', runningMs: 27_000 },
      ],
    });
    stop();
    end();
    await Promise.all([persons, exports]);
  });

  it('says nothing for an invocation that ended in time, and forgets its stages', async () => {
    // Prepare
    const error = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
    const stages = new Stages();
    const stop = watchDeadline(contextWithin(30_000), 1);

    // Act
    await stages.required('store', [{ messageId: 'm-1' }], async () => undefined);
    stop();
    await jest.advanceTimersByTimeAsync(30_000);
    const late = watchDeadline(contextWithin(3_000), 2);
    await jest.advanceTimersByTimeAsync(1_000);
    late();

    // Assess: the second watch reports no stage of the first invocation
    expect(error.mock.calls.map(([, fields]) => fields)).toEqual([
      { remainingMs: 2_000, records: 2, stages: [] },
    ]);
  });
});
