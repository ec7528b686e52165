import type * as timersPromises from 'node:timers/promises';

/** The module production code sleeps through, as it requires it (an ESM import would be a copy). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const timers = require('node:timers/promises') as typeof timersPromises;

/**
 * Sleeps through `node:timers/promises` end at once and move `Date.now()` on by what they asked:
 * the waits code asks for are asserted, not the time a loaded machine took. `onWait` sees each
 * wait as it is asked (to order it among other calls).
 */
export function virtualTimers(onWait: (ms: number) => void = () => undefined) {
  let now = Date.now();
  const waits: number[] = [];
  const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
  const sleep = jest.spyOn(timers, 'setTimeout').mockImplementation((ms?: number) => {
    waits.push(ms ?? 0);
    now += ms ?? 0;
    onWait(ms ?? 0);
    return Promise.resolve();
  });
  return {
    waits,
    restore: () => {
      sleep.mockRestore();
      clock.mockRestore();
    },
  };
}
