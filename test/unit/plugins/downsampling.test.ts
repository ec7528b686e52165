import { downsamplingPlugin, samplingPoint } from '../../../functions/shared/domain/plugins/downsampling';
import { metaFor, pluginEvent, run } from './fixtures';

const keeping = (percentage: string, samplingMethod?: string) =>
  metaFor(downsamplingPlugin, samplingMethod ? { percentage, samplingMethod } : { percentage });

describe('Downsampling plugin', () => {
  it('places a distinct id by the first 15 hex digits of its SHA-256 over 2^60', () => {
    // sha256("1") = 6b86b273ff34fce19d6b…; 0x6b86b273ff34fce / 0xfffffffffffffff = 0.42002406…
    expect(samplingPoint('1')).toBeCloseTo(0.4200240643687784, 15);
    expect(samplingPoint('alice')).toBeCloseTo(0.1712650529798836, 15);
  });

  it("drops distinct id 1 (point 0.42) at 0–40 % and keeps it at 50–100 %, as PostHog's test does", async () => {
    for (const percentage of ['0', '10', '20', '30', '40']) {
      expect(
        await run(downsamplingPlugin, pluginEvent({ distinct_id: '1' }), keeping(percentage)),
      ).toBeNull();
    }
    for (const percentage of ['50', '60', '70', '80', '90', '100']) {
      const event = pluginEvent({ distinct_id: '1' });
      expect(await run(downsamplingPlugin, event, keeping(percentage))).toBe(event);
    }
  });

  it('keeps a distinct id exactly at the threshold (42.0024…% keeps, 42 % drops)', async () => {
    expect(await run(downsamplingPlugin, pluginEvent({ distinct_id: '1' }), keeping('42'))).toBeNull();
    expect(
      await run(downsamplingPlugin, pluginEvent({ distinct_id: '1' }), keeping('42.0025')),
    ).not.toBeNull();
  });

  it('keeps every event at 100 % and none at 0 %', async () => {
    for (let i = 0; i < 50; i++) {
      const event = pluginEvent({ distinct_id: `user-${i}` });
      expect(await run(downsamplingPlugin, event, keeping('100'))).toBe(event);
      expect(await run(downsamplingPlugin, event, keeping('0'))).toBeNull();
    }
  });

  it('samples randomly per event in random mode, deterministically from the event uuid', async () => {
    const meta = keeping('30', 'Random sampling');
    const decisions = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        run(downsamplingPlugin, pluginEvent({ distinct_id: 'same', uuid: `uuid-${i}` }), meta),
      ),
    );
    const kept = decisions.filter((event) => event !== null).length;
    // floor(point * 100) <= 30 keeps 31 % of uniform points.
    expect(kept).toBeGreaterThan(90);
    expect(kept).toBeLessThan(160);
    const again = await run(downsamplingPlugin, pluginEvent({ distinct_id: 'same', uuid: 'uuid-7' }), meta);
    expect(again === null).toBe(decisions[7] === null);
  });

  it.each(['-1', '101', 'abc', ''])("refuses percentage %p at setup with PostHog's message", (percentage) => {
    expect(() => downsamplingPlugin.setup({ percentage })).toThrow(
      'Percentage must be a number between 0 and 100.',
    );
  });
});
