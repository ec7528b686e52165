import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import {
  s3ExportKey,
  s3ExportObject,
  s3ExportPlugin,
  type S3ExportState,
} from '../../../functions/shared/domain/plugins/s3-export';
import type { ProcessedPluginEvent } from '../../../functions/shared/domain/plugins/types';

const CONFIG = {
  awsAccessKey: 'AKIA',
  awsSecretAccessKey: 'secret',
  s3BucketName: 'exports',
  awsRegion: 'eu-west-1',
  prefix: 'backups/posthog/',
  uploadMinutes: '1',
  uploadMegabytes: '1',
  eventsToIgnore: '$feature_flag_called, $pageleave',
  compression: 'gzip',
  sse: 'disabled',
};

const processed = (uuid: string, event = '$pageview'): ProcessedPluginEvent => ({
  distinct_id: 'alice',
  ip: null,
  team_id: 2,
  event,
  properties: { $current_url: 'https://example.com/' },
  timestamp: '2024-03-01T12:00:00.000Z',
  uuid,
});

const NOW = new Date('2024-03-01T09:08:07.654Z');
const SUFFIX = '0123456789abcdef';
const state = (changes: Record<string, string> = {}): S3ExportState =>
  s3ExportPlugin.setup({ ...CONFIG, ...changes });

describe('S3 Export plugin', () => {
  it("names objects <prefix>YYYY-MM-DD/YYYYMMDD-HHMMSS.mmmZ-<16 hex>.jsonl, as PostHog's plugin does", () => {
    expect(s3ExportKey('backups/posthog/', NOW, SUFFIX)).toBe(
      'backups/posthog/2024-03-01/20240301-090807.654Z-0123456789abcdef.jsonl',
    );
    expect(s3ExportKey('', NOW, SUFFIX)).toBe('2024-03-01/20240301-090807.654Z-0123456789abcdef.jsonl');
  });

  it('gzips one JSON document per line by default, into a .gz key', () => {
    const object = s3ExportObject([processed('u1'), processed('u2')], state(), NOW, SUFFIX);
    expect(object?.bucket).toBe('exports');
    expect(object?.key).toBe('backups/posthog/2024-03-01/20240301-090807.654Z-0123456789abcdef.jsonl.gz');
    expect(gunzipSync(object!.body).toString('utf8')).toBe(
      `${JSON.stringify(processed('u1'))}\n${JSON.stringify(processed('u2'))}`,
    );
    expect(object).not.toHaveProperty('serverSideEncryption');
  });

  it('writes brotli to .br and uncompressed to .jsonl', () => {
    const brotli = s3ExportObject([processed('u1')], state({ compression: 'brotli' }), NOW, SUFFIX);
    expect(brotli?.key.endsWith('.jsonl.br')).toBe(true);
    expect(brotliDecompressSync(brotli!.body).toString('utf8')).toBe(JSON.stringify(processed('u1')));
    const plain = s3ExportObject([processed('u1')], state({ compression: 'no compression' }), NOW, SUFFIX);
    expect(plain?.key.endsWith('.jsonl')).toBe(true);
    expect(plain?.body.toString('utf8')).toBe(JSON.stringify(processed('u1')));
  });

  it('leaves ignored events out, and makes no object of a batch of only ignored events', () => {
    const object = s3ExportObject(
      [processed('u1'), processed('u2', '$feature_flag_called'), processed('u3', '$pageleave')],
      state({ compression: 'no compression' }),
      NOW,
      SUFFIX,
    );
    expect(object?.body.toString('utf8')).toBe(JSON.stringify(processed('u1')));
    expect(s3ExportObject([processed('u2', '$feature_flag_called')], state(), NOW, SUFFIX)).toBeNull();
  });

  it('asks for server-side encryption when configured', () => {
    expect(s3ExportObject([processed('u1')], state({ sse: 'AES256' }), NOW, SUFFIX)).toMatchObject({
      serverSideEncryption: 'AES256',
    });
    expect(
      s3ExportObject([processed('u1')], state({ sse: 'aws:kms', sseKmsKeyId: 'key-1' }), NOW, SUFFIX),
    ).toMatchObject({ serverSideEncryption: 'aws:kms', sseKmsKeyId: 'key-1' });
  });

  it.each([
    [{ awsAccessKey: '' }, 'AWS access key missing!'],
    [{ awsSecretAccessKey: '' }, 'AWS secret access key missing!'],
    [{ awsRegion: '' }, 'AWS region must be set if config.s3BucketEndpoint is unset!'],
    [{ s3BucketName: '' }, 'S3 bucket name missing!'],
    [{ sse: 'aws:kms' }, 'AWS KMS encryption requested but no KMS key ID provided!'],
  ])("fails setup for %p with the plugin's message", (changes, message) => {
    expect(() => state(changes)).toThrow(message);
  });

  it('accepts an endpoint instead of a region, and bounds the buffer settings', () => {
    const local = state({
      awsRegion: '',
      s3BucketEndpoint: 'https://minio.example.com:9000',
      uploadMinutes: '600',
      uploadMegabytes: '0',
    });
    expect(local).toMatchObject({
      endpoint: 'https://minio.example.com:9000',
      uploadMinutes: 60,
      uploadMegabytes: 1,
    });
  });
});
