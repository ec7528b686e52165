import type { CityResponse } from 'maxmind';
import type { GeoIpCity, GeoIpNames } from '../../shared/domain/plugins/types';
import { continentOf } from './continents';

/**
 * The two database shapes the consumer reads, mapped to the `GeoIpCity` record the GeoIP plugin
 * expects (what `@maxmind/geoip2-node` returns: camelCase, English names under `names.en`).
 */

/** A record of ip-location-db's GeoLite2 City MMDB: flat, empty strings for what it does not know. */
export interface FlatCityRecord {
  readonly country_code?: string;
  readonly state1?: string;
  readonly state2?: string;
  readonly city?: string;
  readonly postcode?: string;
  readonly latitude?: number;
  readonly longitude?: number;
  readonly timezone?: string;
}

/**
 * ICU's English region names, with its name for ZZ (its code for no known region). Built on the first
 * country looked up, not at cold start: loading ICU's display names costs a consumer's cold start
 * tens of milliseconds, and a container whose projects have no GeoIP never needs them.
 */
let regions: { readonly names: Intl.DisplayNames; readonly unknown: string | undefined } | undefined;

function regionNames(): NonNullable<typeof regions> {
  if (!regions) {
    const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
    regions = { names, unknown: names.of('ZZ') };
  }
  return regions;
}

/** The English name of an ISO country code (Node's full ICU), undefined for a code ICU does not know. */
export function countryName(code: string): string | undefined {
  const { names, unknown } = regionNames();
  try {
    const name = names.of(code.toUpperCase());
    return name === unknown ? undefined : name;
  } catch {
    return undefined;
  }
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined;

/** The flat files store coordinates as 32-bit floats; GeoLite2 publishes 4 decimals (about 11 m). */
const coordinate = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? Math.round(value * 10_000) / 10_000 : undefined;

const named = (name: string | undefined) => (name === undefined ? {} : { names: { en: name } });

/**
 * A flat record → `GeoIpCity`. Country name from ICU, continent from the country (continents.ts);
 * what the flat data lacks (subdivision ISO codes, accuracy radius, confidences) is left out, and a
 * section with nothing known (no city, say) is absent, so the plugin writes no value for it.
 */
export function cityOfFlatRecord(record: FlatCityRecord): GeoIpCity {
  const countryCode = text(record.country_code)?.toUpperCase();
  const city = text(record.city);
  const postcode = text(record.postcode);
  const latitude = coordinate(record.latitude);
  const longitude = coordinate(record.longitude);
  const timeZone = text(record.timezone);
  const continent = countryCode ? continentOf(countryCode) : undefined;
  const subdivisions = [text(record.state1), text(record.state2)];
  // A second level only below a first, as GeoIP2 lists them.
  const known = subdivisions[0] === undefined ? [] : subdivisions.filter((name) => name !== undefined);
  return {
    ...(city ? { city: { names: { en: city } } } : {}),
    ...(continent ? { continent: { code: continent.code, names: { en: continent.name } } } : {}),
    ...(countryCode ? { country: { isoCode: countryCode, ...named(countryName(countryCode)) } } : {}),
    ...(latitude !== undefined || longitude !== undefined || timeZone
      ? { location: { latitude, longitude, timeZone } }
      : {}),
    ...(postcode ? { postal: { code: postcode } } : {}),
    ...(known.length > 0 ? { subdivisions: known.map((name) => ({ names: { en: name } })) } : {}),
  };
}

/** Every locale's name, as geoip2-node keeps them (the plugin reads `en`). */
const localeNames = (names: object | undefined): GeoIpNames | undefined =>
  names && Object.fromEntries(Object.entries(names));

/** A GeoIP2/GeoLite2 City record as the `maxmind` reader returns it (snake_case) → geoip2-node's camelCase. */
export function cityOfGeoIp2Record(record: CityResponse): GeoIpCity {
  const { city, continent, country, location, postal, subdivisions } = record;
  return {
    ...(city ? { city: { names: localeNames(city.names), confidence: city.confidence } } : {}),
    ...(continent ? { continent: { code: continent.code, names: localeNames(continent.names) } } : {}),
    ...(country
      ? {
          country: {
            isoCode: country.iso_code,
            names: localeNames(country.names),
            confidence: country.confidence,
          },
        }
      : {}),
    ...(location
      ? {
          location: {
            latitude: location.latitude,
            longitude: location.longitude,
            accuracyRadius: location.accuracy_radius,
            timeZone: location.time_zone,
          },
        }
      : {}),
    ...(postal ? { postal: { code: postal.code, confidence: postal.confidence } } : {}),
    ...(subdivisions
      ? {
          subdivisions: subdivisions.map((subdivision) => ({
            isoCode: subdivision.iso_code,
            names: localeNames(subdivision.names),
            confidence: subdivision.confidence,
          })),
        }
      : {}),
  };
}
