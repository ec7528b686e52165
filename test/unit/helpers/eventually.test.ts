import { eventually } from '../../helpers/local-server';

/** A probe that finds nothing until `readyAfterMs`, then `'ready'`; counts its calls. */
function delayedProbe(readyAfterMs: number): {
  probe: () => Promise<string | undefined>;
  calls: () => number;
} {
  const readyAt = Date.now() + readyAfterMs;
  let calls = 0;
  return {
    probe: async () => {
      calls += 1;
      return Date.now() >= readyAt ? 'ready' : undefined;
    },
    calls: () => calls,
  };
}

describe('eventually: what an integration test waits with', () => {
  it('probes less often as the wait grows (each probe is a request the server spends CPU on)', async () => {
    // Prepare: ready after 1.5 s, as a batching window and a retry would take.
    const { probe, calls } = delayedProbe(1_500);

    // Act
    const value = await eventually('the probe to be ready', probe, 5_000);

    // Assess: 100 ms pauses probed 15 times in those 1.5 s; pauses growing to 500 ms, at most 8 times.
    expect(value).toBe('ready');
    expect(calls()).toBeLessThanOrEqual(8);
  });

  it('probes a last time at the deadline, then names what never came', async () => {
    // Prepare: ready exactly at the deadline, which a probe at it still sees.
    const { probe, calls } = delayedProbe(600);

    // Act
    const atDeadline = await eventually('the probe at the deadline', probe, 600);
    const never = eventually('a value that never comes', async () => undefined, 300);

    // Assess
    expect(atDeadline).toBe('ready');
    expect(calls()).toBeGreaterThan(1);
    await expect(never).rejects.toThrow('waited 0.3 s in vain for a value that never comes');
  });
});
