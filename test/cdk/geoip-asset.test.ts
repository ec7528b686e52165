import { existsSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { bundledDatabaseFiles, bundledDatabaseFolder } from '../../functions/consumer/geoip/source';
import { buildApp } from '../../lib/app';
import { copyAfterBundling } from '../../lib/flock-function';
import { testApp } from '../helpers/cdk-app';

/**
 * The consumer's asset carries the bundled GeoIP database: the CDK tests synthesize with bundling off,
 * so this checks the step that copies the files after esbuild, and that the files it names exist.
 */
describe('bundled GeoIP database in the consumer asset', () => {
  const { app } = testApp();
  const { stateless } = buildApp(app);

  it('copies both .mmdb files and the GeoLite2 licence into geoip/ beside the bundle', () => {
    const files = stateless.consumer.assetFiles?.files ?? [];
    expect(stateless.consumer.assetFiles?.folder).toBe(bundledDatabaseFolder);
    expect(files.map((file) => basename(file))).toEqual([
      bundledDatabaseFiles.ipv4,
      bundledDatabaseFiles.ipv6,
      ...bundledDatabaseFiles.licence,
    ]);
    for (const file of files) expect(existsSync(file)).toBe(true);
    const mmdbBytes = files.filter((file) => file.endsWith('.mmdb')).map((file) => statSync(file).size);
    expect(Math.min(...mmdbBytes)).toBeGreaterThan(10 * 2 ** 20);
  });

  it('runs plain shell commands after bundling, quoting the paths', () => {
    const commands = copyAfterBundling({ folder: 'geoip', files: ["/a b/it's.mmdb"] }).afterBundling(
      '/in',
      '/out',
    );
    expect(commands).toEqual(["mkdir -p '/out/geoip'", `cp '/a b/it'\\''s.mmdb' '/out/geoip'/`]);
  });

  it('copies nothing into other functions', () => {
    for (const fn of [...Object.values(stateless.httpFunctions), stateless.cohortCalculation])
      expect(fn.assetFiles).toBeUndefined();
  });

  it('leaves the files out when the consumer reads an S3 database', () => {
    const { app: withDb } = testApp({ context: { geoipDatabase: 's3://geo/City.mmdb' } });
    expect(buildApp(withDb).stateless.consumer.assetFiles).toBeUndefined();
  });
});
