import { statSync } from 'node:fs';
import { join } from 'node:path';
import { bundledLocator } from '../functions/consumer/geoip/locator';
import { bundledDatabaseFiles, installedDatabaseDir } from '../functions/consumer/geoip/source';
import { benchSetting, report, round } from './lib';

/**
 * What the bundled GeoIP database costs the consumer (docs/plugins.md): the files its asset carries,
 * and, in this fresh process, the time and RSS of the first IPv4 and the first IPv6 lookup (each
 * reads its file), then the time per lookup once loaded. Run alone: `npx tsx bench/geoip-footprint.ts`.
 */
const MB = 2 ** 20;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; rssMb: number; value: T }> {
  const rss = process.memoryUsage().rss;
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, rssMb: (process.memoryUsage().rss - rss) / MB, value };
}

async function main(): Promise<void> {
  const dir = installedDatabaseDir();
  const { ipv4, ipv6, licence } = bundledDatabaseFiles;
  const bytes = (file: string) => statSync(join(dir, file)).size;
  const assetBytes = [ipv4, ipv6, ...licence].reduce((sum, file) => sum + bytes(file), 0);
  const rssBefore = process.memoryUsage().rss;

  const locator = bundledLocator(dir);
  const first4 = await timed(async () => locator.locate('13.106.122.3'));
  const first6 = await timed(async () => locator.locate('2a03:2880:f003:c07:face:b00c::2'));
  const lookups = benchSetting('BENCH_LOOKUPS', 100_000, 10_000);
  let found = 0;
  const steady = await timed(async () => {
    for (let i = 0; i < lookups; i++) {
      const ip = `${((i * 7919) % 223) + 1}.${(i * 31) % 256}.${(i * 17) % 256}.${i % 256}`;
      if (await locator.locate(ip)) found++;
    }
  });
  report(
    'GeoIP: bundled database (ip-location-db GeoLite2 City) in the consumer',
    {
      'asset MB (2 .mmdb + licence)': round(assetBytes / MB, 1),
      'ipv4 file MB': round(bytes(ipv4) / MB, 1),
      'ipv6 file MB': round(bytes(ipv6) / MB, 1),
      'first IPv4 lookup ms (reads ipv4 file)': round(first4.ms, 0),
      'RSS added by ipv4 file MB': round(first4.rssMb, 0),
      'first IPv6 lookup ms (reads ipv6 file)': round(first6.ms, 0),
      'RSS added by ipv6 file MB': round(first6.rssMb, 0),
      'RSS before MB': round(rssBefore / MB, 0),
      'RSS after both MB': round(process.memoryUsage().rss / MB, 0),
      [`lookup µs (${lookups} IPv4, loaded)`]: round((steady.ms * 1000) / lookups, 1),
      'found %': round((100 * found) / lookups, 1),
    },
    'loaded once per container, on the first event with an IP of a project with GeoIP; consumer memory 512 MB',
    {
      figure: `RSS ${round(process.memoryUsage().rss / MB, 0)} MB with both files loaded, first lookups ${round(first4.ms, 0)} / ${round(first6.ms, 0)} ms`,
      met: process.memoryUsage().rss < 512 * MB,
    },
  );
}

void main();
