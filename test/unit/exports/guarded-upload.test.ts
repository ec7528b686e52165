import dns from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { Socket } from 'node:net';
import type { LookupFunction } from 'node:net';
import { exportFailureOf } from '../../../functions/exports/export-error';
import { uploadObject } from '../../../functions/exports/upload';
import type { S3ExportObject, S3ExportState } from '../../../functions/shared/domain/plugins/s3-export';

/**
 * The S3 Export's connections through the real S3 client, with a stubbed resolver (dns.lookup) and
 * a stubbed connector (Socket#connect): the connector runs the socket's lookup as Node would and
 * records the address it would then connect to, but never opens anything. So a refusal is seen to
 * happen before any connection, and no test ever reaches a non-loopback address.
 */

const state = (endpoint: string): S3ExportState => ({
  bucket: 'exports',
  region: 'eu-west-1',
  endpoint,
  forcePathStyle: true,
  accessKeyId: 'AKIA',
  secretAccessKey: 'secret',
  prefix: '',
  uploadMinutes: 1,
  uploadMegabytes: 1,
  eventsToIgnore: new Set(),
  compression: 'gzip',
  sse: 'disabled',
  sseKmsKeyId: '',
});

const object: S3ExportObject = { bucket: 'exports', key: 'k.jsonl.gz', body: Buffer.from('x') };

/** Names the stubbed resolver knows, and what they resolve to. */
const records: Record<string, LookupAddress[]> = {
  'exports.internal.example': [{ address: '10.0.0.7', family: 4 }],
  'rebind.example': [
    { address: '52.216.8.1', family: 4 },
    { address: '10.0.0.1', family: 4 },
  ],
  'metadata.example': [{ address: 'fd00:ec2::254', family: 6 }],
  'mapped.example': [{ address: '::ffff:169.254.169.254', family: 6 }],
  's3.eu-west-1.amazonaws.com': [{ address: '169.254.169.254', family: 4 }],
  's3.example.com': [{ address: '52.216.8.1', family: 4 }],
};

/** Addresses the connector was asked to connect to (and did not). */
let attempted: string[];

beforeEach(() => {
  attempted = [];
  jest.spyOn(dns, 'lookup').mockImplementation(((
    hostname: string,
    options: dns.LookupAllOptions,
    callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ) => {
    const found = records[hostname];
    process.nextTick(() =>
      found
        ? callback(null, found)
        : callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []),
    );
  }) as unknown as typeof dns.lookup);
  jest.spyOn(Socket.prototype, 'connect').mockImplementation(function (this: Socket, ...args: unknown[]) {
    // net.connect passes its normalized arguments as one array; tls.connect passes (options, callback).
    const options = (Array.isArray(args[0]) ? args[0][0] : args[0]) as {
      host: string;
      lookup?: LookupFunction;
    };
    const lookup = options.lookup ?? dns.lookup;
    lookup(options.host, { all: true }, (error, addresses) => {
      if (error) return void this.destroy(error);
      attempted.push(...(addresses as LookupAddress[]).map((entry) => entry.address));
      // What Node reports when nothing listens there.
      this.destroy(Object.assign(new Error('test connector: nothing is opened'), { code: 'ECONNREFUSED' }));
    });
    return this;
  });
});

afterEach(() => jest.restoreAllMocks());

async function failureOf(endpoint: string) {
  const error = await uploadObject(state(endpoint), object).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeDefined();
  return exportFailureOf(error);
}

describe('where an S3 Export connects', () => {
  it.each([
    'https://10.0.0.1',
    'https://169.254.169.254',
    'https://[::ffff:127.0.0.1]:9000',
    'https://[::ffff:a9fe:a9fe]',
    'https://[fd00:ec2::254]',
    'https://127.0.0.1:9000',
    'http://127.0.0.1:9',
  ])('refuses the literal address of %s without creating a socket', async (endpoint) => {
    expect(await failureOf(endpoint)).toMatchObject({ code: 'endpoint_refused' });
    expect(Socket.prototype.connect).not.toHaveBeenCalled();
  });

  it.each([
    'https://exports.internal.example',
    'https://rebind.example',
    'https://metadata.example',
    'https://mapped.example',
  ])('refuses %s, whose name resolves to a refused address, before connecting', async (endpoint) => {
    expect(await failureOf(endpoint)).toMatchObject({ code: 'endpoint_refused' });
    expect(attempted).toEqual([]);
  });

  it("refuses AWS's own S3 name when it resolves to a refused address (no endpoint set)", async () => {
    expect(await failureOf('')).toMatchObject({ code: 'endpoint_refused' });
    expect(attempted).toEqual([]);
  });

  it('connects to a name that resolves to a public address', async () => {
    expect(await failureOf('https://s3.example.com')).toMatchObject({ code: 'endpoint_unreachable' });
    // Once per attempt (an unreachable destination is retried).
    expect(new Set(attempted)).toEqual(new Set(['52.216.8.1']));
  }, 15_000);

  it('tells an unknown name as unreachable, without the name or the resolver error', async () => {
    const failure = await failureOf('https://nowhere.example');
    expect(failure).toEqual({
      code: 'endpoint_unreachable',
      message: 'The bucket endpoint could not be reached.',
    });
  }, 15_000);
});
