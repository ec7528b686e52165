import { hasOwnProtoKey } from '../properties';
import { textOf } from './spread';
import type { BuiltInPlugin, GeoIpCity, PluginEvent, PluginMeta } from './types';

/**
 * PostHog's GeoIP plugin (posthog-plugin-geoip, 2024 version with accuracy radius and confidences):
 * locates the event's IP and writes `$geoip_*` event properties, and the same values as person
 * properties through `properties.$set` (`$geoip_*`) and `properties.$set_once` (`$initial_geoip_*`).
 */

/** The person properties every located event resets, so a move to a less precise location clears old values. */
const PERSON_LOCATION_KEYS = [
  'city_name',
  'city_confidence',
  'subdivision_2_name',
  'subdivision_2_code',
  'subdivision_1_name',
  'subdivision_1_code',
  'country_name',
  'country_code',
  'continent_name',
  'continent_code',
  'postal_code',
  'latitude',
  'longitude',
  'accuracy_radius',
  'time_zone',
] as const;

const nullsFor = (prefix: string): Readonly<Record<string, null>> =>
  Object.fromEntries(PERSON_LOCATION_KEYS.map((key) => [`${prefix}${key}`, null]));
/** Built once: every located event spreads them. */
const SET_NULLS = nullsFor('$geoip_');
const SET_ONCE_NULLS = nullsFor('$initial_geoip_');

/** Local development sends from 127.0.0.1; the plugin pretends it is an address in Sydney. */
const LOCALHOST = '127.0.0.1';
const LOCALHOST_STAND_IN = '13.106.122.3';

const NO_GEOIP = 'This PostHog version does not have GeoIP capabilities! Upgrade to PostHog 1.24.0 or later';

/**
 * The location fields a record yields, in the plugin's order. A section present with a missing value
 * yields `undefined`, as the plugin's assignments do, and JSON later leaves it out.
 */
export function locationOf(record: GeoIpCity): Record<string, unknown> {
  const location: Record<string, unknown> = {};
  if (record.city) {
    location['city_name'] = record.city.names?.en;
    if (typeof record.city.confidence === 'number') location['city_confidence'] = record.city.confidence;
  }
  if (record.country) {
    location['country_name'] = record.country.names?.en;
    location['country_code'] = record.country.isoCode;
    if (typeof record.country.confidence === 'number')
      location['country_confidence'] = record.country.confidence;
  }
  if (record.continent) {
    location['continent_name'] = record.continent.names?.en;
    location['continent_code'] = record.continent.code;
  }
  if (record.postal) {
    location['postal_code'] = record.postal.code;
    if (typeof record.postal.confidence === 'number')
      location['postal_code_confidence'] = record.postal.confidence;
  }
  if (record.location) {
    location['latitude'] = record.location.latitude;
    location['longitude'] = record.location.longitude;
    location['accuracy_radius'] = record.location.accuracyRadius;
    location['time_zone'] = record.location.timeZone;
  }
  record.subdivisions?.forEach((subdivision, index) => {
    location[`subdivision_${index + 1}_code`] = subdivision.isoCode;
    location[`subdivision_${index + 1}_name`] = subdivision.names?.en;
    if (typeof subdivision.confidence === 'number')
      location[`subdivision_${index + 1}_confidence`] = subdivision.confidence;
  });
  return location;
}

/** What a located event gets from its record: event properties, `$set` and `$set_once` values. */
interface LocationProperties {
  readonly event: Readonly<Record<string, unknown>>;
  readonly set: Readonly<Record<string, unknown>>;
  readonly setOnce: Readonly<Record<string, unknown>>;
}

/**
 * `locationOf(record)` under its three prefixes, worked out once per record: the consumer's locator
 * hands out the same record for every event from one address. Built with `Object.fromEntries` and
 * copied in with spreads and `Object.assign`, which keep V8's fast object layout; assigning computed
 * keys one by one would turn the event's properties into a slow dictionary for every later stage.
 */
const locations = new WeakMap<GeoIpCity, LocationProperties>();
function locationProperties(record: GeoIpCity): LocationProperties {
  let found = locations.get(record);
  if (!found) {
    const entries = Object.entries(locationOf(record));
    const prefixed = (prefix: string) =>
      Object.fromEntries(entries.map(([key, value]) => [prefix + key, value]));
    found = { event: prefixed('$geoip_'), set: prefixed('$geoip_'), setOnce: prefixed('$initial_geoip_') };
    locations.set(record, found);
  }
  return found;
}

/**
 * `{ ...nulls, ...client, ...found }`, built with `Object.assign`, several times faster than the spreads.
 * The two differ only where the client's value has an own `__proto__` key (`hasOwnProtoKey`): that
 * value keeps the spreads.
 */
function located(
  nulls: Readonly<Record<string, null>>,
  client: unknown,
  found: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  if (hasOwnProtoKey(client)) return { ...nulls, ...client, ...found };
  return Object.assign({}, nulls, client, found);
}

async function processEvent(event: PluginEvent, meta: PluginMeta<null>): Promise<PluginEvent> {
  if (!meta.geoip) throw new Error(NO_GEOIP);
  const rawIp: unknown = event.properties?.['$ip'] || event.ip;
  if (!rawIp || event.properties?.['$geoip_disable']) return event;
  const ip = textOf(rawIp) === LOCALHOST ? LOCALHOST_STAND_IN : textOf(rawIp);
  const record = await meta.geoip.locate(ip);
  if (!record) return event;

  const found = locationProperties(record);
  const properties = (event.properties ??= {});
  // Null defaults first, then what the client set, then what was found: a field the database does
  // not know keeps the client's value, or is cleared. The plugin sets `$set` and `$set_once` first,
  // then each `$geoip_*` key: the same keys in the same order.
  properties['$set'] = located(SET_NULLS, properties['$set'], found.set);
  properties['$set_once'] = located(SET_ONCE_NULLS, properties['$set_once'], found.setOnce);
  Object.assign(properties, found.event);
  return event;
}

export const geoIpPlugin: BuiltInPlugin<null> = {
  id: 1,
  name: 'GeoIP',
  description: 'Enrich PostHog events and persons with IP location data',
  url: 'https://github.com/PostHog/posthog-plugin-geoip',
  config_schema: [],
  capabilities: { jobs: [], methods: ['processEvent'], scheduled_tasks: [] },
  public_jobs: {},
  setup: () => null,
  processEvent,
};
