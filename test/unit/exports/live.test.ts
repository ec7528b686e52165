import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { PutObjectCommandInput } from '@aws-sdk/client-s3';
import type { SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { randomUUID } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { exportRecords } from '../../../functions/exports/live';
import { uploadAttempts } from '../../../functions/exports/upload';
import { getPluginConfig } from '../../../functions/shared/db/plugin-configs';
import { storePluginConfig } from '../../helpers/plugin-configs';
import { deliveryRate24h } from '../../../functions/shared/db/plugin-exports';
import { readPluginLogs } from '../../../functions/shared/db/plugin-logs';
import type { ProcessedPluginEvent } from '../../../functions/shared/domain/plugins/types';
import type { ExportMessage } from '../../../functions/shared/queue/export-message';
import { exportsQueue } from '../../../functions/shared/queue/definitions';
import { tablesWithProject } from '../../helpers/consumer-tables';
import { readFailures } from '../../../functions/shared/db/failures';
import type { DynaliteTables } from '../../helpers/dynalite-tables';

const projectId = 7;
const table = 'main';
const at = new Date('2024-03-01T12:00:05.000Z');
const s3 = mockClient(S3Client);
let fake: DynaliteTables;
let configId: number;

const settings = (overrides: Record<string, string> = {}): Record<string, string> => ({
  awsAccessKey: 'AKIA',
  awsSecretAccessKey: 'secret',
  awsRegion: 'eu-west-1',
  s3BucketName: 'exports',
  prefix: 'posthog/',
  // The schema's default, which the API fills in.
  eventsToIgnore: '$feature_flag_called',
  ...overrides,
});

async function configure(overrides: Record<string, string> = {}, enabled = true): Promise<void> {
  const { record } = await storePluginConfig(table, projectId, {
    plugin: 10,
    enabled,
    order: 1,
    config: settings(overrides),
    error: null,
  });
  configId = record.id;
}

beforeEach(async () => {
  s3.reset();
  s3.on(PutObjectCommand).resolves({});
  fake = await tablesWithProject(projectId);
  await configure();
});

afterEach(async () => {
  await fake.stop();
});

function event(name = 'paid', properties: Record<string, unknown> = {}): ProcessedPluginEvent {
  return {
    uuid: randomUUID(),
    event: name,
    distinct_id: 'ada',
    team_id: projectId,
    ip: '203.0.113.9',
    timestamp: '2024-03-01T12:00:00.000Z',
    properties,
  };
}

function record(
  source: string,
  events: ProcessedPluginEvent[],
  receiveCount = 1,
  messageId: string = randomUUID(),
): SQSRecord {
  const message: ExportMessage = {
    v: 1,
    project_id: projectId,
    plugin_config_id: configId,
    source,
    events,
  };
  return {
    messageId,
    body: JSON.stringify(message),
    attributes: { ApproximateReceiveCount: String(receiveCount) },
  } as unknown as SQSRecord;
}

const puts = (): PutObjectCommandInput[] =>
  s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input);

const exportedUuids = (): string[] =>
  puts().flatMap((input) =>
    gunzipSync(input.Body as Buffer)
      .toString('utf8')
      .split('\n')
      .map((line) => (JSON.parse(line) as ProcessedPluginEvent).uuid),
  );

describe('the live S3 export', () => {
  it("puts one gzipped JSON-lines object per batch and config, under PostHog's key layout", async () => {
    // Prepare
    const events = [event('paid'), event('signed up'), event('$feature_flag_called')];

    // Act
    const response = await exportRecords(
      [record('m1', events.slice(0, 2)), record('m2', [events[2]!])],
      table,
      at,
    );

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(puts()).toHaveLength(1);
    const [put] = puts();
    expect(put).toMatchObject({ Bucket: 'exports' });
    expect(put!.Key).toMatch(/^posthog\/2024-03-01\/20240301-120005\.000Z-[0-9a-f]{16}\.jsonl\.gz$/);
    const lines = gunzipSync(put!.Body as Buffer)
      .toString('utf8')
      .split('\n')
      .map((line) => JSON.parse(line) as ProcessedPluginEvent);
    // $feature_flag_called is in the events to ignore.
    expect(lines).toEqual(events.slice(0, 2));
    expect(await deliveryRate24h(table, projectId, configId, at)).toBe(1);
  });

  it('uploads a redelivered message nothing, and an event a second message carries again not twice', async () => {
    // Prepare
    const first = event();
    const second = event();
    const message = record('ingest-1', [first]);

    // Act: the message, its redelivery, then another ingest message with the same event and a new one
    await exportRecords([message], table, at);
    await exportRecords([message], table, at);
    await exportRecords([record('ingest-2', [first, second])], table, at);

    // Assess
    expect(exportedUuids().sort()).toEqual([first.uuid, second.uuid].sort());
    expect(puts()).toHaveLength(2);
  });

  it('exports again an event whose first upload failed, when its own message is retried', async () => {
    // Prepare
    const lost = event();
    s3.on(PutObjectCommand).rejects(new Error('Service Unavailable'));
    const message = record('ingest-1', [lost]);

    // Act
    const failed = await exportRecords([message], table, at);
    s3.resetHistory();
    s3.on(PutObjectCommand).resolves({});
    const retried = await exportRecords([message], table, at);

    // Assess
    expect(failed.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
    expect(retried.batchItemFailures).toEqual([]);
    expect(exportedUuids()).toEqual([lost.uuid]);
  }, 15_000);

  it(`tries a failing upload ${uploadAttempts} times, then reports the message, the config error and one log entry`, async () => {
    // Prepare
    s3.on(PutObjectCommand).rejects(
      Object.assign(new Error('The specified bucket does not exist'), {
        name: 'NoSuchBucket',
        $metadata: { httpStatusCode: 404 },
      }),
    );
    const records = [record('a', [event()]), record('b', [event(), event()])];

    // Act
    const response = await exportRecords(records, table, at);

    // Assess
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(uploadAttempts);
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(
      records.map((failed) => failed.messageId).sort(),
    );
    const config = await getPluginConfig(table, projectId, configId);
    // What members read: S3's answer, with a code, and no stack.
    const message = 'S3 refused the upload (404 NoSuchBucket): The specified bucket does not exist';
    expect(config?.error).toEqual({ message, code: 's3_error', time: at.toISOString(), event: null });
    const logs = await readPluginLogs(
      table,
      projectId,
      configId,
      { types: [] },
      { limit: 10, offset: 0 },
      at,
    );
    expect(logs.entries).toEqual([
      expect.objectContaining({
        source: 'PLUGIN',
        type: 'ERROR',
        message: `${message} (s3_error)`,
      }),
    ]);
    // Not the last receive: SQS will retry, so nothing counts as undelivered yet.
    expect(await deliveryRate24h(table, projectId, configId, at)).toBeNull();
    // What `dlq list --queue exports` shows the operator next to each message: the raw error.
    for (const failed of records)
      expect(await readFailures(table, failed.messageId)).toEqual([
        expect.objectContaining({
          attempt: 1,
          errorName: 'NoSuchBucket',
          errorMessage: 'The specified bucket does not exist',
        }),
      ]);
  }, 15_000);

  it('counts events undelivered on their last receive, and delivered ones, in delivery_rate_24h', async () => {
    // Prepare
    s3.on(PutObjectCommand).rejects(new Error('Access Denied'));

    // Act: 3 events given up on, then 1 delivered
    await exportRecords([record('a', [event(), event(), event()], exportsQueue.maxReceiveCount)], table, at);
    s3.on(PutObjectCommand).resolves({});
    await exportRecords([record('b', [event()])], table, at);

    // Assess
    expect(await deliveryRate24h(table, projectId, configId, at)).toBe(0.25);
    expect(
      await deliveryRate24h(table, projectId, configId, new Date(at.getTime() + 25 * 3_600_000)),
    ).toBeNull();
  }, 15_000);

  it('retries within the invocation: a second attempt that succeeds fails nothing', async () => {
    // Prepare
    s3.on(PutObjectCommand).rejectsOnce(new Error('Slow Down')).resolves({});

    // Act
    const response = await exportRecords([record('a', [event()])], table, at);

    // Assess
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(2);
    expect(response.batchItemFailures).toEqual([]);
  });

  it('keeps each object within uploadMegabytes (before compression), never cutting a message', async () => {
    // Prepare: six messages of about 300 KB of JSON each, a limit of 1 MB
    await configure({ uploadMegabytes: '1' });
    const big = (): ProcessedPluginEvent => event('big', { blob: 'x'.repeat(100_000) });
    const records = Array.from({ length: 6 }, (_, n) => record(`m${n}`, [big(), big(), big()]));

    // Act
    const response = await exportRecords(records, table, at);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(puts().length).toBeGreaterThanOrEqual(2);
    for (const put of puts()) expect(gunzipSync(put.Body as Buffer).length).toBeLessThanOrEqual(1024 * 1024);
    expect(exportedUuids()).toHaveLength(18);
    expect(new Set(puts().map((put) => put.Key)).size).toBe(puts().length);
  });

  it('uses the config credentials, region, endpoint and path style', async () => {
    // Prepare
    await configure({
      s3BucketEndpoint: 'https://minio.example.com:9000',
      s3ForcePathStyle: 'true',
      awsAccessKey: 'KEY2',
    });

    // Act
    await exportRecords([record('a', [event()])], table, at);

    // Assess
    const client = s3.commandCalls(PutObjectCommand)[0]!.thisValue as S3Client;
    expect(client.config.forcePathStyle).toBe(true);
    expect(await client.config.region()).toBe('eu-west-1');
    expect((await client.config.credentials()).accessKeyId).toBe('KEY2');
    const endpoint = await client.config.endpoint!();
    expect(`${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`).toBe(
      'https://minio.example.com:9000',
    );
  });

  it('acknowledges without uploading the events of a config disabled since', async () => {
    // Prepare
    await configure({}, false);

    // Act
    const response = await exportRecords([record('a', [event()])], table, at);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(puts()).toEqual([]);
  });
});
