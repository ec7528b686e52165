import { bucketEndpointProblem, refusedRangeOf } from '../../../functions/shared/domain/plugins/s3-endpoint';
import { setupPluginConfig } from '../../../functions/shared/domain/plugins/setup';
import { s3ExportPlugin } from '../../../functions/shared/domain/plugins/s3-export';
import { envNames } from '../../../functions/shared/config';
import { setFunctionEnvironment, unsetEnvironment } from '../../../bin/environment';

describe('the addresses an S3 Export may connect to', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['169.254.10.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['64:ff9b::a00:1', 'reserved'],
    ['2002:a00:1::', 'reserved'],
    // IPv4-mapped IPv6, dotted and in hex, are judged as the IPv4 address they carry.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['::ffff:169.254.1.1', 'link-local'],
    ['not an address', 'reserved'],
  ])('refuses %s (%s)', (address, range) => {
    expect(refusedRangeOf(address, false)).toBe(range);
  });

  it.each(['52.216.8.1', '3.5.140.2', '2600:1f18::1', '::ffff:34.1.2.3', '8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(refusedRangeOf(address, false)).toBeUndefined();
    },
  );

  it('allows loopback, and only loopback, under the local server', () => {
    expect(refusedRangeOf('127.0.0.1', true)).toBeUndefined();
    expect(refusedRangeOf('::ffff:127.0.0.1', true)).toBeUndefined();
    expect(refusedRangeOf('::1', true)).toBeUndefined();
    expect(refusedRangeOf('10.0.0.1', true)).toBe('private');
    expect(refusedRangeOf('169.254.169.254', true)).toBe('metadata');
  });
});

describe('s3BucketEndpoint when a config is written', () => {
  it.each([
    ['', undefined],
    ['https://s3.eu-west-1.amazonaws.com', undefined],
    ['https://minio.example.com:9000/', undefined],
    ['https://52.216.8.1', undefined],
    ['http://s3.eu-west-1.amazonaws.com', 'must use https'],
    ['ftp://s3.example.com', 'must use https'],
    ['s3.example.com', 'must be a URL'],
    ['https://user:pw@s3.example.com', 'user name or password'],
    ['https://10.0.0.1', '10.0.0.1 is a private address'],
    ['https://169.254.169.254/latest/meta-data', 'instance metadata service'],
    ['https://[fd00:ec2::254]', 'instance metadata service'],
    ['https://[::ffff:127.0.0.1]:9', 'loopback'],
    ['https://127.0.0.1:9', 'loopback'],
    // WHATWG URL forms of 127.0.0.1: decimal, octal, hex.
    ['https://2130706433', 'loopback'],
    ['https://0177.0.0.1', 'loopback'],
    ['https://0x7f.1', 'loopback'],
    ['https://localhost:9000', 'loopback'],
    ['https://s3.localhost.', 'loopback'],
    ['https://[fe80::1]', 'link-local'],
    ['https://0.0.0.0', 'unspecified'],
    ['https://[ff02::1]', 'multicast'],
    [`https://${'a'.repeat(64)}.example.com`, 'DNS can resolve'],
    [`https://${'a.'.repeat(127)}example`, 'DNS can resolve'],
    ['https://s3_bucket.example.com.', undefined],
  ])('%p: %p', (endpoint, problem) => {
    const found = bucketEndpointProblem(endpoint, false);
    if (problem === undefined) expect(found).toBeUndefined();
    else expect(found).toContain(problem);
  });

  it('takes http for loopback only, under the local server', () => {
    expect(bucketEndpointProblem('http://127.0.0.1:4566', true)).toBeUndefined();
    expect(bucketEndpointProblem('http://localhost:9000', true)).toBeUndefined();
    expect(bucketEndpointProblem('http://[::1]:9000', true)).toBeUndefined();
    expect(bucketEndpointProblem('http://s3.example.com', true)).toContain('must use https');
    expect(bucketEndpointProblem('http://10.0.0.1:9000', true)).toContain('must use https');
    expect(bucketEndpointProblem('https://10.0.0.1:9000', true)).toContain('private');
  });

  describe('in the plugin setup', () => {
    const settings = (endpoint: string) => ({
      awsAccessKey: 'a',
      awsSecretAccessKey: 's',
      s3BucketName: 'b',
      s3BucketEndpoint: endpoint,
    });
    afterEach(() => unsetEnvironment(envNames.localMode));

    it('names the setting it refuses', () => {
      const setup = setupPluginConfig(s3ExportPlugin, settings('http://127.0.0.1:9000'), new Date());
      expect(setup).toMatchObject({ ok: false, setting: 's3BucketEndpoint' });
    });

    it('takes a loopback endpoint under the local server', () => {
      setFunctionEnvironment({ [envNames.localMode]: 'true' });
      const setup = setupPluginConfig(s3ExportPlugin, settings('http://127.0.0.1:9000'), new Date());
      expect(setup.ok).toBe(true);
    });
  });
});
