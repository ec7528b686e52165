import { unduplicatorPlugin } from '../../../functions/shared/domain/plugins/unduplicator';
import { metaFor, PAGEVIEW_PROPERTIES, pluginEvent, run } from './fixtures';

const pageview = (changes: Parameters<typeof pluginEvent>[0] = {}) =>
  pluginEvent({ event: '$pageview', properties: structuredClone(PAGEVIEW_PROPERTIES), ...changes });

const uuidOf = async (event: ReturnType<typeof pluginEvent>, dedupMode = 'Event and Timestamp') =>
  (await run(unduplicatorPlugin, event, metaFor(unduplicatorPlugin, { dedupMode })))?.uuid;

describe('Unduplicator plugin', () => {
  it("derives PostHog's uuid for the plugin's test event in both modes", async () => {
    const timestamp = '2020-02-02T23:59:59.999999Z';
    expect(await uuidOf(pageview({ timestamp }))).toBe('1b2b7e1a-c059-5116-a6d2-eb1c1dd793bc');
    expect(await uuidOf(pageview({ timestamp }), 'All Properties')).toBe(
      '5a4e6d35-a9e4-50e2-9d97-4f7cc04e8b30',
    );
  });

  it('gives two sends of one event the same uuid, whatever their other properties', async () => {
    const timestamp = '2020-05-02T20:59:59.999999Z';
    const first = await uuidOf(pageview({ timestamp, properties: { a: 1 }, uuid: 'x' }));
    const second = await uuidOf(pageview({ timestamp, properties: { b: 2 }, uuid: 'y' }));
    expect(first).toBe(second);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('tells apart events differing in timestamp, name, distinct id or project', async () => {
    const base = await uuidOf(pageview({ timestamp: '2020-05-02T20:59:59.999999Z' }));
    const variants = await Promise.all([
      uuidOf(pageview({ timestamp: '2020-05-02T20:59:59.999888Z' })),
      uuidOf(pageview({ timestamp: '2020-05-02T20:59:59.999999Z', event: 'other' })),
      uuidOf(pageview({ timestamp: '2020-05-02T20:59:59.999999Z', distinct_id: 'other' })),
      uuidOf(pageview({ timestamp: '2020-05-02T20:59:59.999999Z', team_id: 14 })),
    ]);
    expect(new Set([base, ...variants]).size).toBe(5);
  });

  it('tells apart events differing only in properties in All Properties mode', async () => {
    const timestamp = '2020-05-02T20:59:59.999999Z';
    const one = await uuidOf(pageview({ timestamp, properties: { customProp: '1' } }), 'All Properties');
    const two = await uuidOf(pageview({ timestamp, properties: { customProp: '2' } }), 'All Properties');
    expect(one).not.toBe(two);
  });

  it('keeps the uuid of an event without a timestamp and says why', async () => {
    const meta = metaFor(unduplicatorPlugin, { dedupMode: 'Event and Timestamp' });
    const event = await run(unduplicatorPlugin, pageview({ timestamp: undefined, uuid: 'kept' }), meta);
    expect(event?.uuid).toBe('kept');
    expect(meta.lines).toEqual([
      {
        type: 'INFO',
        message:
          'Received event without a timestamp, the event will not be processed because deduping will not work.',
      },
    ]);
  });
});
