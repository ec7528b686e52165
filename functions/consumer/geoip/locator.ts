import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import type { CityResponse, Response } from 'maxmind';
import { Reader } from 'maxmind';
import { boundedCache } from '../../shared/cache';
import type { GeoIpCity, GeoIpLocator } from '../../shared/domain/plugins/types';
import { logger } from '../../shared/logger';
import type { FlatCityRecord } from './records';
import { cityOfFlatRecord, cityOfGeoIp2Record } from './records';
import type { S3Object } from './source';
import { bundledDatabaseFiles, bundledDatabaseFolder, installedDatabaseDir, parseS3Url } from './source';

/**
 * The consumer's `meta.geoip` (issue 11): a GeoLite2 City lookup whose database is read on first
 * use, once per container. Nothing is read at cold start: a container whose projects have no GeoIP
 * config, or whose events carry no IP, never pays the load (about 100 MB of RSS for both files).
 *
 * Two sources:
 * - bundled (default): ip-location-db's GeoLite2 City files, one per IP family, copied into the
 *   consumer's asset by the stack (or read from node_modules locally); each family's file is read
 *   on its first address, so IPv4-only traffic never loads the IPv6 file.
 * - an operator's official MaxMind GeoLite2/GeoIP2 City `.mmdb` in S3 (`FLOCK_GEOIP_DATABASE`),
 *   fetched on first use; both families live in that one file.
 */

type Load<T> = () => Promise<T>;

/** `load` run once; a failed load (S3 unreachable, say) is forgotten, so the next event tries again. */
function once<T>(load: Load<T>): Load<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}

/** Reads a database and logs what it cost: its size, the time taken and the process's RSS after. */
async function timedOpen<T extends Response>(what: string, read: () => Promise<Buffer>): Promise<Reader<T>> {
  const started = performance.now();
  const rssBefore = process.memoryUsage().rss;
  const reader = new Reader<T>(await read());
  const rss = process.memoryUsage().rss;
  logger.info('GeoIP database loaded', {
    database: what,
    ms: Math.round(performance.now() - started),
    rssMb: Math.round(rss / 2 ** 20),
    rssAddedMb: Math.round((rss - rssBefore) / 2 ** 20),
  });
  return reader;
}

/** Addresses whose answer a container keeps: about 1 KB each. */
const rememberedAddresses = 10_000;

/**
 * `lookup`, with the last `rememberedAddresses` answers (misses too) kept: a client's events come from
 * one address (a flush of 20 events, a whole session), so most events skip the decoding and mapping of
 * the record. A database does not change while a container runs, so an answer never goes stale. The
 * record is shared by every event of that address: the GeoIP plugin only reads it.
 */
function remembered(lookup: (ip: string) => Promise<GeoIpCity | null>): GeoIpLocator {
  const answers = boundedCache<string, { readonly city: GeoIpCity | null }>({ max: rememberedAddresses });
  return {
    async locate(ip: string): Promise<GeoIpCity | null> {
      const known = answers.get(ip);
      if (known) return known.city;
      const city = await lookup(ip);
      answers.set(ip, { city });
      return city;
    },
  };
}

/** `::ffff:1.2.3.4` → `1.2.3.4`: an IPv4 address written as IPv6 is looked up in the IPv4 file. */
const ipv4Mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** Where the bundled files are: beside the bundle in the Lambda asset, else in node_modules. */
export function bundledDatabaseDir(): string {
  const inAsset = join(__dirname, bundledDatabaseFolder);
  return existsSync(join(inAsset, bundledDatabaseFiles.ipv4)) ? inAsset : installedDatabaseDir();
}

/** The bundled ip-location-db GeoLite2 City database in `dir`, mapped to GeoIP2 records. */
export function bundledLocator(dir?: string): GeoIpLocator {
  // The reader's types know MaxMind's shapes only; these files hold flat records (records.ts).
  const reader = (file: string) =>
    once(() => timedOpen<CityResponse>(file, () => readFile(join(dir ?? bundledDatabaseDir(), file))));
  const ipv4 = reader(bundledDatabaseFiles.ipv4);
  const ipv6 = reader(bundledDatabaseFiles.ipv6);
  return remembered(async (ip) => {
    const address = ipv4Mapped.exec(ip)?.[1] ?? ip;
    const family = isIP(address);
    if (family === 0) return null;
    const record = (await (family === 4 ? ipv4 : ipv6)()).get(address) as FlatCityRecord | null;
    return record ? cityOfFlatRecord(record) : null;
  });
}

/** An official GeoLite2/GeoIP2 City database in S3, fetched on first use. */
export function s3Locator(object: S3Object, client?: S3Client): GeoIpLocator {
  const reader = once(() =>
    timedOpen<CityResponse>(`s3://${object.bucket}/${object.key}`, async () => {
      // Imported here: a container using the bundled files never evaluates the S3 client.
      const { GetObjectCommand, S3Client } = await import('@aws-sdk/client-s3');
      const response = await (client ?? new S3Client({})).send(
        new GetObjectCommand({ Bucket: object.bucket, Key: object.key }),
      );
      if (!response.Body) throw new Error(`GeoIP database s3://${object.bucket}/${object.key} is empty`);
      return Buffer.from(await response.Body.transformToByteArray());
    }),
  );
  return remembered(async (ip) => {
    if (isIP(ip) === 0) return null;
    const record = (await reader()).get(ip);
    return record ? cityOfGeoIp2Record(record) : null;
  });
}

/** The locator the environment asks for: the S3 object `FLOCK_GEOIP_DATABASE` names, else the bundled files. */
export function geoIpLocatorFor(databaseUrl: string | undefined): GeoIpLocator {
  if (databaseUrl === undefined) return bundledLocator();
  const object = parseS3Url(databaseUrl);
  if (!object) throw new Error(`Invalid Flock configuration: ${databaseUrl} is not an s3://bucket/key URL`);
  return s3Locator(object);
}
