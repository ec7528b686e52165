import { geoIpPlugin } from '../../../functions/shared/domain/plugins/geoip';
import type { GeoIpCity, GeoIpLocator } from '../../../functions/shared/domain/plugins/types';
import { metaFor, pluginEvent, run } from './fixtures';

/** What MaxMind's GeoLite2-City-Test.mmdb answers for 89.160.20.129, PostHog's test vector. */
const LINKOPING: GeoIpCity = {
  city: { names: { en: 'Linköping', de: 'Linköping' } },
  continent: { code: 'EU', names: { en: 'Europe' } },
  country: { isoCode: 'SE', names: { en: 'Sweden' } },
  location: { accuracyRadius: 76, latitude: 58.4167, longitude: 15.6167, timeZone: 'Europe/Stockholm' },
  subdivisions: [{ isoCode: 'E', names: { en: 'Östergötland County' } }],
};

/** A database holding one address, recording every lookup. */
function fakeDatabase(records: Record<string, GeoIpCity>): GeoIpLocator & { readonly asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    locate: async (ip) => {
      asked.push(ip);
      return records[ip] ?? null;
    },
  };
}

const geoMeta = (records: Record<string, GeoIpCity> = { '89.160.20.129': LINKOPING }) => {
  const geoip = fakeDatabase(records);
  return { geoip, meta: metaFor(geoIpPlugin, {}, { geoip }) };
};

describe('GeoIP plugin', () => {
  it('adds the $geoip_* event properties of the located IP', async () => {
    const { meta } = geoMeta();
    const event = await run(
      geoIpPlugin,
      pluginEvent({ event: '$pageview', ip: '89.160.20.129', properties: {} }),
      meta,
    );
    expect(event?.properties).toMatchObject({
      $geoip_city_name: 'Linköping',
      $geoip_country_name: 'Sweden',
      $geoip_country_code: 'SE',
      $geoip_continent_name: 'Europe',
      $geoip_continent_code: 'EU',
      $geoip_latitude: 58.4167,
      $geoip_longitude: 15.6167,
      $geoip_accuracy_radius: 76,
      $geoip_time_zone: 'Europe/Stockholm',
      $geoip_subdivision_1_code: 'E',
      $geoip_subdivision_1_name: 'Östergötland County',
    });
    // No postal section in the record, so no postal property on the event (only a null on the person).
    expect(event?.properties).not.toHaveProperty('$geoip_postal_code');
  });

  it('gives every event of an address (one shared record) the same properties, in objects of its own', async () => {
    const { meta } = geoMeta();
    const locate = () =>
      run(geoIpPlugin, pluginEvent({ event: '$pageview', ip: '89.160.20.129', properties: {} }), meta);
    const [first, second] = [await locate(), await locate()];
    expect(second?.properties).toEqual(first?.properties);
    expect(second?.properties?.['$set']).not.toBe(first?.properties?.['$set']);
    expect(LINKOPING.location).toEqual({
      accuracyRadius: 76,
      latitude: 58.4167,
      longitude: 15.6167,
      timeZone: 'Europe/Stockholm',
    });
  });

  it('sets every person location field in $set and $set_once, null where the database has none', async () => {
    const { meta } = geoMeta({ '89.160.20.129': { ...LINKOPING, city: undefined } });
    const event = await run(geoIpPlugin, pluginEvent({ ip: '89.160.20.129', properties: {} }), meta);
    expect(event?.properties?.['$set']).toEqual({
      $geoip_accuracy_radius: 76,
      $geoip_city_confidence: null,
      $geoip_city_name: null,
      $geoip_continent_code: 'EU',
      $geoip_continent_name: 'Europe',
      $geoip_country_code: 'SE',
      $geoip_country_name: 'Sweden',
      $geoip_latitude: 58.4167,
      $geoip_longitude: 15.6167,
      $geoip_postal_code: null,
      $geoip_subdivision_1_code: 'E',
      $geoip_subdivision_1_name: 'Östergötland County',
      $geoip_subdivision_2_code: null,
      $geoip_subdivision_2_name: null,
      $geoip_time_zone: 'Europe/Stockholm',
    });
    expect(event?.properties?.['$set_once']).toEqual({
      $initial_geoip_accuracy_radius: 76,
      $initial_geoip_city_confidence: null,
      $initial_geoip_city_name: null,
      $initial_geoip_continent_code: 'EU',
      $initial_geoip_continent_name: 'Europe',
      $initial_geoip_country_code: 'SE',
      $initial_geoip_country_name: 'Sweden',
      $initial_geoip_latitude: 58.4167,
      $initial_geoip_longitude: 15.6167,
      $initial_geoip_postal_code: null,
      $initial_geoip_subdivision_1_code: 'E',
      $initial_geoip_subdivision_1_name: 'Östergötland County',
      $initial_geoip_subdivision_2_code: null,
      $initial_geoip_subdivision_2_name: null,
      $initial_geoip_time_zone: 'Europe/Stockholm',
    });
  });

  it("keeps the client's own $set values for fields the database does not know, and overrides the rest", async () => {
    const { meta } = geoMeta({ '89.160.20.129': { ...LINKOPING, city: undefined } });
    const event = await run(
      geoIpPlugin,
      pluginEvent({
        ip: '89.160.20.129',
        properties: { $set: { email: 'a@b.c', $geoip_city_name: 'Client City', $geoip_country_code: 'XX' } },
      }),
      meta,
    );
    expect(event?.properties?.['$set']).toMatchObject({
      email: 'a@b.c',
      $geoip_city_name: 'Client City',
      $geoip_country_code: 'SE',
    });
  });

  it('writes $set, $set_once, then the $geoip_* keys in the plugin’s order, after the event’s own', async () => {
    const { meta } = geoMeta();
    const event = await run(
      geoIpPlugin,
      pluginEvent({ ip: '89.160.20.129', properties: { plan: 'pro', $set: { email: 'a@b.c' } } }),
      meta,
    );
    expect(Object.keys(event?.properties ?? {})).toEqual([
      'plan',
      '$set',
      '$set_once',
      '$geoip_city_name',
      '$geoip_country_name',
      '$geoip_country_code',
      '$geoip_continent_name',
      '$geoip_continent_code',
      '$geoip_latitude',
      '$geoip_longitude',
      '$geoip_accuracy_radius',
      '$geoip_time_zone',
      '$geoip_subdivision_1_code',
      '$geoip_subdivision_1_name',
    ]);
  });

  it('keeps a client $set key named __proto__ as a key, not as the object’s prototype', async () => {
    const { meta } = geoMeta();
    const $set = JSON.parse('{"__proto__": {"polluted": true}, "email": "a@b.c"}') as object;
    const event = await run(geoIpPlugin, pluginEvent({ ip: '89.160.20.129', properties: { $set } }), meta);
    const set = event?.properties?.['$set'] as Record<string, unknown>;
    expect(Object.getPrototypeOf(set)).toBe(Object.prototype);
    expect(Object.hasOwn(set, '__proto__')).toBe(true);
    expect(set['email']).toBe('a@b.c');
    expect(set['$geoip_country_code']).toBe('SE');
  });

  it('prefers properties.$ip to the request ip', async () => {
    const { geoip, meta } = geoMeta();
    await run(geoIpPlugin, pluginEvent({ ip: '10.0.0.1', properties: { $ip: '89.160.20.129' } }), meta);
    expect(geoip.asked).toEqual(['89.160.20.129']);
  });

  it('looks 127.0.0.1 up as the Sydney address PostHog substitutes for local development', async () => {
    const { geoip, meta } = geoMeta();
    await run(geoIpPlugin, pluginEvent({ ip: '127.0.0.1', properties: {} }), meta);
    expect(geoip.asked).toEqual(['13.106.122.3']);
  });

  it('skips an event with $geoip_disable, leaving it untouched', async () => {
    const { geoip, meta } = geoMeta();
    const original = pluginEvent({ ip: '89.160.20.129', properties: { $geoip_disable: true } });
    const event = await run(geoIpPlugin, structuredClone(original), meta);
    expect(event).toEqual(original);
    expect(geoip.asked).toEqual([]);
  });

  it('skips an event without an ip and one whose ip the database does not know', async () => {
    const { geoip, meta } = geoMeta();
    const noIp = pluginEvent({ ip: null, properties: {} });
    expect(await run(geoIpPlugin, structuredClone(noIp), meta)).toEqual(noIp);
    const unknown = pluginEvent({ ip: '10.1.2.3', properties: {} });
    expect(await run(geoIpPlugin, structuredClone(unknown), meta)).toEqual(unknown);
    expect(geoip.asked).toEqual(['10.1.2.3']);
  });

  it('adds confidences, which only the enterprise database has, when present', async () => {
    const { meta } = geoMeta({
      '1.2.3.4': {
        city: { names: { en: 'X' }, confidence: 50 },
        country: { isoCode: 'FR', names: { en: 'France' }, confidence: 99 },
        postal: { code: '75001', confidence: 20 },
        subdivisions: [{ isoCode: 'IDF', names: { en: 'Île-de-France' }, confidence: 70 }],
      },
    });
    const event = await run(geoIpPlugin, pluginEvent({ ip: '1.2.3.4', properties: {} }), meta);
    expect(event?.properties).toMatchObject({
      $geoip_city_confidence: 50,
      $geoip_country_confidence: 99,
      $geoip_postal_code: '75001',
      $geoip_postal_code_confidence: 20,
      $geoip_subdivision_1_confidence: 70,
    });
    expect(event?.properties?.['$set_once']).toMatchObject({ $initial_geoip_country_confidence: 99 });
  });

  it("throws PostHog's error when the runtime offers no GeoIP database", async () => {
    await expect(
      run(geoIpPlugin, pluginEvent({ ip: '89.160.20.129' }), metaFor(geoIpPlugin)),
    ).rejects.toThrow(
      'This PostHog version does not have GeoIP capabilities! Upgrade to PostHog 1.24.0 or later',
    );
  });
});
