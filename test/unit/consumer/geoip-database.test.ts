import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { readFileSync } from 'node:fs';
import fsPromises from 'node:fs/promises';
import { basename, join } from 'node:path';
import { mockClient } from 'aws-sdk-client-mock';
import type { CityResponse } from 'maxmind';
import { Reader } from 'maxmind';
import { continentOf } from '../../../functions/consumer/geoip/continents';
import { bundledLocator, geoIpLocatorFor, s3Locator } from '../../../functions/consumer/geoip/locator';
import { cityOfFlatRecord, cityOfGeoIp2Record, countryName } from '../../../functions/consumer/geoip/records';
import {
  bundledDatabaseFiles,
  installedDatabaseDir,
  parseS3Url,
} from '../../../functions/consumer/geoip/source';
import { locationOf } from '../../../functions/shared/domain/plugins/geoip';

/** The bundled GeoLite2 City files (ip-location-db), read once for the whole file. */
const database = bundledLocator();

describe('bundled GeoLite2 City database', () => {
  it('locates 13.106.122.3 (the plugin stand-in for 127.0.0.1) in Sydney, New South Wales', async () => {
    const record = await database.locate('13.106.122.3');
    expect(record).toEqual({
      city: { names: { en: 'Sydney' } },
      continent: { code: 'OC', names: { en: 'Oceania' } },
      country: { isoCode: 'AU', names: { en: 'Australia' } },
      location: { latitude: -33.8672, longitude: 151.1997, timeZone: 'Australia/Sydney' },
      postal: { code: '2000' },
      subdivisions: [{ names: { en: 'New South Wales' } }],
    });
    expect(locationOf(record!)).toEqual({
      city_name: 'Sydney',
      country_name: 'Australia',
      country_code: 'AU',
      continent_name: 'Oceania',
      continent_code: 'OC',
      postal_code: '2000',
      latitude: -33.8672,
      longitude: 151.1997,
      accuracy_radius: undefined,
      time_zone: 'Australia/Sydney',
      subdivision_1_code: undefined,
      subdivision_1_name: 'New South Wales',
    });
  });

  it('gives a second subdivision when the data has one', async () => {
    const record = await database.locate('81.2.69.160');
    expect(record).toMatchObject({
      city: { names: { en: 'Bracknell' } },
      country: { isoCode: 'GB', names: { en: 'United Kingdom' } },
      continent: { code: 'EU', names: { en: 'Europe' } },
      subdivisions: [{ names: { en: 'England' } }, { names: { en: 'Bracknell Forest' } }],
      location: { timeZone: 'Europe/London' },
    });
  });

  it('locates IPv6 addresses in the IPv6 file', async () => {
    expect(await database.locate('2a03:2880:f003:c07:face:b00c::2')).toMatchObject({
      city: { names: { en: 'Ashburn' } },
      country: { isoCode: 'US', names: { en: 'United States' } },
      continent: { code: 'NA', names: { en: 'North America' } },
      subdivisions: [{ names: { en: 'Virginia' } }],
      postal: { code: '20149' },
      location: { timeZone: 'America/New_York' },
    });
    // A country-level record: no city, postal code or subdivision, so the plugin writes none.
    const countryOnly = await database.locate('2001:218::1');
    expect(countryOnly).toEqual({
      continent: { code: 'AS', names: { en: 'Asia' } },
      country: { isoCode: 'JP', names: { en: 'Japan' } },
      location: { latitude: 35.69, longitude: 139.69, timeZone: 'Asia/Tokyo' },
    });
  });

  it('looks an IPv4-mapped IPv6 address up as IPv4', async () => {
    expect(await database.locate('::ffff:13.106.122.3')).toEqual(await database.locate('13.106.122.3'));
  });

  it('finds nothing for private, loopback, unassigned or malformed addresses', async () => {
    for (const ip of ['10.0.0.1', '192.168.1.1', '127.0.0.1', '::1', 'fd00::1', 'not an ip', '999.1.1.1', ''])
      expect(await database.locate(ip)).toBeNull();
  });
});

describe('loading', () => {
  it('reads nothing until a lookup needs a file, then each file once', async () => {
    const reads = jest.spyOn(fsPromises, 'readFile');
    try {
      const locator = bundledLocator();
      await locator.locate('not an ip');
      expect(reads).not.toHaveBeenCalled();
      await Promise.all([locator.locate('13.106.122.3'), locator.locate('81.2.69.160')]);
      await locator.locate('8.8.8.8');
      expect(reads.mock.calls.map(([file]) => basename(file as string))).toEqual([bundledDatabaseFiles.ipv4]);
      await locator.locate('2001:218::1');
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      reads.mockRestore();
    }
  });
});

describe('remembered answers', () => {
  it('decodes an address once: its next lookups, misses too, are answered from memory', async () => {
    const locator = bundledLocator();
    await locator.locate('8.8.8.8');
    const decodes = jest.spyOn(Reader.prototype, 'get');
    try {
      const first = await locator.locate('81.2.69.160');
      expect(await locator.locate('81.2.69.160')).toBe(first);
      expect(await locator.locate('10.0.0.1')).toBeNull();
      expect(await locator.locate('10.0.0.1')).toBeNull();
      expect(decodes).toHaveBeenCalledTimes(2);
    } finally {
      decodes.mockRestore();
    }
  });
});

describe('flat records', () => {
  it('maps a record with every field, rounding the stored 32-bit coordinates to 4 decimals', () => {
    expect(
      cityOfFlatRecord({
        country_code: 'se',
        state1: 'Östergötland County',
        state2: '',
        city: 'Linköping',
        postcode: '582 78',
        latitude: 58.41669845581055,
        longitude: 15.616700172424316,
        timezone: 'Europe/Stockholm',
      }),
    ).toEqual({
      city: { names: { en: 'Linköping' } },
      continent: { code: 'EU', names: { en: 'Europe' } },
      country: { isoCode: 'SE', names: { en: 'Sweden' } },
      location: { latitude: 58.4167, longitude: 15.6167, timeZone: 'Europe/Stockholm' },
      postal: { code: '582 78' },
      subdivisions: [{ names: { en: 'Östergötland County' } }],
    });
  });

  it('leaves out what it does not know: an unknown country keeps its code and has no continent', () => {
    expect(cityOfFlatRecord({ country_code: 'ZZ', city: '', state1: '', state2: 'x' })).toEqual({
      country: { isoCode: 'ZZ' },
    });
    expect(cityOfFlatRecord({})).toEqual({});
  });

  it('names countries through ICU and places them on GeoNames continents', () => {
    expect(countryName('DE')).toBe('Germany');
    expect(countryName('XK')).toBe('Kosovo');
    expect(countryName('??')).toBeUndefined();
    expect(countryName('AA')).toBeUndefined();
    expect(['RU', 'TR', 'EG', 'PA', 'NZ', 'BR', 'AQ'].map((code) => continentOf(code)?.code)).toEqual([
      'EU',
      'AS',
      'AF',
      'NA',
      'OC',
      'SA',
      'AN',
    ]);
  });
});

/** What the `maxmind` reader returns from MaxMind's GeoLite2-City-Test.mmdb for 89.160.20.129. */
const LINKOPING_GEOIP2 = {
  city: { geoname_id: 2694762, names: { en: 'Linköping', de: 'Linköping' } },
  continent: { code: 'EU', geoname_id: 6255148, names: { en: 'Europe' } },
  country: { geoname_id: 2661886, is_in_european_union: true, iso_code: 'SE', names: { en: 'Sweden' } },
  location: { accuracy_radius: 76, latitude: 58.4167, longitude: 15.6167, time_zone: 'Europe/Stockholm' },
  registered_country: { geoname_id: 2921044, iso_code: 'DE', names: { en: 'Germany' } },
  subdivisions: [{ geoname_id: 2685867, iso_code: 'E', names: { en: 'Östergötland County' } }],
} as unknown as CityResponse;

describe('official GeoIP2 records', () => {
  it("map to @maxmind/geoip2-node's camelCase City, which the plugin reads as PostHog's does", () => {
    expect(locationOf(cityOfGeoIp2Record(LINKOPING_GEOIP2))).toEqual({
      city_name: 'Linköping',
      country_name: 'Sweden',
      country_code: 'SE',
      continent_name: 'Europe',
      continent_code: 'EU',
      latitude: 58.4167,
      longitude: 15.6167,
      accuracy_radius: 76,
      time_zone: 'Europe/Stockholm',
      subdivision_1_code: 'E',
      subdivision_1_name: 'Östergötland County',
    });
  });

  it('are read from the S3 object on first use, once, and again after a failed read', async () => {
    // The IPv4 file stands in for an official database: any MMDB exercises fetching and reading.
    const bytes = readFileSync(join(installedDatabaseDir(), bundledDatabaseFiles.ipv4));
    const s3 = mockClient(S3Client);
    s3.on(GetObjectCommand)
      .rejectsOnce(new Error('throttled'))
      .resolves({ Body: { transformToByteArray: async () => new Uint8Array(bytes) } } as never);
    const locator = s3Locator({ bucket: 'geo', key: 'GeoLite2-City.mmdb' }, new S3Client({}));
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
    await expect(locator.locate('13.106.122.3')).rejects.toThrow('throttled');
    // Found (what the flat record maps to does not matter here); unknown addresses are not.
    expect(await locator.locate('13.106.122.3')).not.toBeNull();
    expect(await locator.locate('10.0.0.1')).toBeNull();
    expect(await locator.locate('bad')).toBeNull();
    expect(s3.commandCalls(GetObjectCommand).map((call) => call.args[0].input)).toEqual([
      { Bucket: 'geo', Key: 'GeoLite2-City.mmdb' },
      { Bucket: 'geo', Key: 'GeoLite2-City.mmdb' },
    ]);
    s3.restore();
  });

  it('come from the S3 URL the environment names, which must be s3://bucket/key', () => {
    expect(parseS3Url('s3://flock-geo/maxmind/GeoLite2-City.mmdb')).toEqual({
      bucket: 'flock-geo',
      key: 'maxmind/GeoLite2-City.mmdb',
    });
    for (const url of ['https://x/y', 's3://bucket', 's3://bucket/', 's3:///key'])
      expect(parseS3Url(url)).toBeUndefined();
    expect(() => geoIpLocatorFor('https://x/y')).toThrow('not an s3://bucket/key URL');
    expect(geoIpLocatorFor('s3://geo/City.mmdb')).toBeDefined();
    expect(geoIpLocatorFor(undefined)).toBeDefined();
  });
});
