import { brotliCompressSync, gzipSync } from 'node:zlib';
import { localMode } from '../../config';
import { bucketEndpointProblem } from './s3-endpoint';
import { PluginSettingError } from './setup';
import type { BuiltInPlugin, PluginConfigValues, ProcessedPluginEvent } from './types';

/**
 * PostHog's S3 Export (s3-export-plugin): writes batches of ingested events to S3 as JSON Lines,
 * under `<prefix><YYYY-MM-DD>/<YYYYMMDD>-<HHMMSS.mmm>Z-<16 hex>.jsonl[.gz|.br]`. This module turns a
 * batch into the object to put; the exports function buffers, uploads and retries.
 */

export interface S3ExportState {
  readonly bucket: string;
  readonly region: string;
  readonly endpoint: string;
  readonly forcePathStyle: boolean;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly prefix: string;
  readonly uploadMinutes: number;
  readonly uploadMegabytes: number;
  readonly eventsToIgnore: ReadonlySet<string>;
  readonly compression: 'gzip' | 'brotli' | 'no compression';
  readonly sse: 'disabled' | 'AES256' | 'aws:kms';
  readonly sseKmsKeyId: string;
}

/** An object to put: what the plugin passed to S3's `upload`. */
export interface S3ExportObject {
  readonly bucket: string;
  readonly key: string;
  readonly body: Buffer;
  readonly serverSideEncryption?: 'AES256' | 'aws:kms';
  readonly sseKmsKeyId?: string;
}

const COMPRESSIONS = ['gzip', 'brotli', 'no compression'] as const;
const SSE_MODES = ['disabled', 'AES256', 'aws:kms'] as const;

/** The plugin's hints bound these: minutes 1–60, megabytes 1–100. */
function bounded(value: string | undefined, min: number, max: number): number {
  const parsed = parseInt(value ?? '', 10);
  return Number.isNaN(parsed) ? min : Math.min(max, Math.max(min, parsed));
}

const oneOf = <T extends string>(choices: readonly T[], value: string | undefined, fallback: T): T =>
  choices.find((choice) => choice === value) ?? fallback;

/** The plugin's setupPlugin checks, with its messages, then the settings every batch uses. */
function setup(config: PluginConfigValues): S3ExportState {
  if (!config['awsAccessKey']) throw new Error('AWS access key missing!');
  if (!config['awsSecretAccessKey']) throw new Error('AWS secret access key missing!');
  if (!config['awsRegion'] && !config['s3BucketEndpoint']) {
    throw new Error('AWS region must be set if config.s3BucketEndpoint is unset!');
  }
  if (!config['s3BucketName']) throw new Error('S3 bucket name missing!');
  if (config['sse'] === 'aws:kms' && !config['sseKmsKeyId']) {
    throw new Error('AWS KMS encryption requested but no KMS key ID provided!');
  }
  const endpointProblem = bucketEndpointProblem(config['s3BucketEndpoint'] ?? '', localMode());
  if (endpointProblem) throw new PluginSettingError('s3BucketEndpoint', endpointProblem);
  return {
    bucket: config['s3BucketName'],
    region: config['awsRegion'] ?? '',
    endpoint: config['s3BucketEndpoint'] ?? '',
    forcePathStyle: config['s3ForcePathStyle'] === 'true',
    accessKeyId: config['awsAccessKey'],
    secretAccessKey: config['awsSecretAccessKey'],
    prefix: config['prefix'] ?? '',
    uploadMinutes: bounded(config['uploadMinutes'], 1, 60),
    uploadMegabytes: bounded(config['uploadMegabytes'], 1, 100),
    eventsToIgnore: new Set(
      config['eventsToIgnore'] ? config['eventsToIgnore'].split(',').map((e) => e.trim()) : [],
    ),
    // Unset means PostHog's defaults: gzip, no server-side encryption.
    compression: oneOf(COMPRESSIONS, config['compression'], 'gzip'),
    sse: oneOf(SSE_MODES, config['sse'], 'disabled'),
    sseKmsKeyId: config['sseKmsKeyId'] ?? '',
  };
}

/**
 * The events of a batch to upload. PostHog's plugin checks the ignore list but then uploads the whole
 * batch whenever one event is not ignored; Flock leaves the ignored events out, as the setting says.
 */
export function eventsToExport(
  events: readonly ProcessedPluginEvent[],
  state: S3ExportState,
): ProcessedPluginEvent[] {
  return events.filter((event) => !state.eventsToIgnore.has(event.event));
}

/** `<prefix><YYYY-MM-DD>/<YYYYMMDD>-<HHMMSS.mmm>Z-<suffix>.jsonl`, the time being the upload's (UTC). */
export function s3ExportKey(prefix: string, now: Date, suffix: string): string {
  const [day = '', time = ''] = now.toISOString().split('T');
  return `${prefix}${day}/${day.split('-').join('')}-${time.split(':').join('')}-${suffix}.jsonl`;
}

/** One JSON document per line, no trailing newline, as the plugin writes them. */
export function jsonLines(events: readonly ProcessedPluginEvent[]): Buffer {
  return Buffer.from(events.map((event) => JSON.stringify(event)).join('\n'), 'utf8');
}

/**
 * The object a batch becomes, or null when nothing in it is to be exported. `suffix` is the 16 hex
 * digits (8 random bytes) that keep two uploads in one millisecond apart; the caller draws them.
 */
export function s3ExportObject(
  events: readonly ProcessedPluginEvent[],
  state: S3ExportState,
  now: Date,
  suffix: string,
): S3ExportObject | null {
  const exported = eventsToExport(events, state);
  if (exported.length === 0) return null;
  const key = s3ExportKey(state.prefix, now, suffix);
  const lines = jsonLines(exported);
  const encryption =
    state.sse === 'disabled'
      ? {}
      : {
          serverSideEncryption: state.sse,
          ...(state.sse === 'aws:kms' ? { sseKmsKeyId: state.sseKmsKeyId } : {}),
        };
  if (state.compression === 'gzip')
    return { bucket: state.bucket, key: `${key}.gz`, body: gzipSync(lines), ...encryption };
  if (state.compression === 'brotli') {
    return { bucket: state.bucket, key: `${key}.br`, body: brotliCompressSync(lines), ...encryption };
  }
  return { bucket: state.bucket, key, body: lines, ...encryption };
}

/** PostHog's job spec for the historical export every `exportEvents` plugin gets. */
export const EXPORT_HISTORICAL_EVENTS = 'Export historical events';

export const s3ExportPlugin: BuiltInPlugin<S3ExportState> = {
  id: 10,
  name: 'S3 Export Plugin',
  description: 'Export PostHog events to Amazon S3 on ingestion.',
  url: 'https://github.com/posthog/s3-export-plugin',
  config_schema: [
    {
      markdown:
        'Read [the documentation](https://github.com/PostHog/s3-export-plugin) here for instructions in getting these keys.',
    },
    { key: 'awsAccessKey', name: 'AWS Access Key', type: 'string', default: '', required: true },
    {
      key: 'awsSecretAccessKey',
      name: 'AWS Secret Access Key',
      type: 'string',
      secret: true,
      default: '',
      required: true,
    },
    { key: 's3BucketName', name: 'S3 Bucket name', type: 'string', default: '', required: true },
    {
      key: 'awsRegion',
      name: 'AWS Region',
      type: 'string',
      default: 'us-west-1',
      hint: 'Required if S3 Bucket Endpoint is not set',
    },
    {
      key: 'prefix',
      name: 'S3 filename prefix',
      type: 'string',
      default: '',
      hint: 'For example "backups/posthog/" (with a trailing slash) to store the backups in a separate folder.',
      required: false,
    },
    {
      key: 'uploadMinutes',
      name: 'Upload at most every X minutes',
      type: 'string',
      default: '1',
      hint: 'If there are events to upload and this many minutes has passed since the last upload, send the events to S3. The value must be between 1 and 60 minutes.',
      required: true,
    },
    {
      key: 'uploadMegabytes',
      name: 'Maximum upload size in megabytes',
      type: 'string',
      default: '1',
      hint: 'Always keep the uploaded files below this size limit, uploading more frequently than the time limit if needed. Events are kept in memory until then, so make sure your server has enough of it. The value must be between 1 and 100 MB.',
      required: true,
    },
    {
      key: 'eventsToIgnore',
      name: 'Events to ignore',
      type: 'string',
      default: '$feature_flag_called',
      hint: 'Comma separated list of events to ignore',
    },
    {
      key: 'uploadFormat',
      name: 'Format of uploaded files',
      type: 'choice',
      choices: ['jsonl'],
      default: 'jsonl',
      hint: 'jsonl: text files with one event per line as JSON',
    },
    {
      key: 'compression',
      name: 'Compress uploaded files',
      type: 'choice',
      choices: ['gzip', 'brotli', 'no compression'],
      default: 'gzip',
      hint: 'Compressing events before uploading them to S3 keeps costs down. The upload size limits are applied *before* the compression.',
    },
    {
      key: 's3BucketEndpoint',
      name: '[ADVANCED] S3 Bucket Endpoint',
      type: 'string',
      default: '',
      hint: 'For example: `http://127.0.0.1:9000`, which is a `minio` or `localstack` instance that is API compatible with Amazon S3',
      required: false,
    },
    {
      key: 's3ForcePathStyle',
      name: '[ADVANCED] s3ForcePathStyle',
      type: 'choice',
      choices: ['true', 'false'],
      default: 'false',
      hint: 'Most be set to `true` for `minio` instances',
    },
    {
      key: 'signatureVersion',
      name: '[ADVANCED] Signature version',
      type: 'choice',
      choices: ['v4', ''],
      default: '',
      hint: '[Docs](https://docs.aws.amazon.com/AmazonS3/latest/API/bucket-policy-s3-sigv4-conditions.html)',
    },
    {
      key: 'sse',
      name: 'Server-side encryption',
      type: 'choice',
      choices: ['disabled', 'AES256', 'aws:kms'],
      default: 'disabled',
      hint: 'Specifies server-side encryption of the object in S3. Valid values are AES256 and aws:kms. If the parameter is specified but no value is provided, AES256 is used.',
    },
    {
      key: 'sseKmsKeyId',
      name: 'SSE KMS key ID',
      type: 'string',
      default: '',
      hint: 'The customer-managed AWS Key Management Service (KMS) key ID that should be used to server-side encrypt the object in S3.',
      required: false,
    },
  ],
  // What the plugin-server's exportEvents upgrade gives it: a buffering onEvent, a flush on teardown,
  // and the historical export job.
  capabilities: {
    jobs: [EXPORT_HISTORICAL_EVENTS],
    methods: ['setupPlugin', 'teardownPlugin', 'onEvent', 'exportEvents'],
    scheduled_tasks: [],
  },
  public_jobs: {
    [EXPORT_HISTORICAL_EVENTS]: {
      payload: {
        dateFrom: { required: true, title: 'Export start date', type: 'date' },
        dateTo: { required: true, title: 'Export end date', type: 'date' },
      },
    },
  },
  setup,
};
