import { firstTimeEventTrackerPlugin } from '../../../functions/shared/domain/plugins/first-time-event-tracker';
import { memoryStorage, metaFor, pluginEvent, run } from './fixtures';

const tracker = (storage = memoryStorage()) => ({
  storage,
  meta: metaFor(firstTimeEventTrackerPlugin, { events: 'signup,purchase' }, { storage }),
});

describe('First Time Event Tracker plugin', () => {
  it('marks the first event ever, then the first for another user, then neither', async () => {
    const { storage, meta } = tracker();
    const track = async (distinct_id: string) =>
      (
        await run(
          firstTimeEventTrackerPlugin,
          pluginEvent({ event: 'signup', distinct_id, properties: {} }),
          meta,
        )
      )?.properties;
    expect(await track('alice')).toEqual({ is_first_event_ever: true, is_first_event_for_user: true });
    expect(await track('bob')).toEqual({ is_first_event_ever: false, is_first_event_for_user: true });
    expect(await track('alice')).toEqual({ is_first_event_ever: false, is_first_event_for_user: false });
    expect([...storage.values.entries()]).toEqual([
      ['signup_alice', true],
      ['signup', true],
      ['signup_bob', true],
    ]);
  });

  it('tracks each listed event separately and leaves others untouched, without touching storage', async () => {
    const { storage, meta } = tracker();
    await run(firstTimeEventTrackerPlugin, pluginEvent({ event: 'signup', properties: {} }), meta);
    const purchase = await run(firstTimeEventTrackerPlugin, pluginEvent({ event: 'purchase' }), meta);
    expect(purchase?.properties).toEqual({ is_first_event_ever: true, is_first_event_for_user: true });
    const other = await run(
      firstTimeEventTrackerPlugin,
      pluginEvent({ event: '$pageview', properties: { a: 1 } }),
      meta,
    );
    expect(other?.properties).toEqual({ a: 1 });
    expect(storage.values.size).toBe(4);
  });

  it('fails a tracked event when the runtime offers no storage', async () => {
    const meta = metaFor(firstTimeEventTrackerPlugin, { events: 'signup' });
    await expect(run(firstTimeEventTrackerPlugin, pluginEvent({ event: 'signup' }), meta)).rejects.toThrow(
      'needs plugin storage',
    );
  });
});
