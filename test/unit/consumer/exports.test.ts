import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { randomUUID } from 'node:crypto';
import { ingestRecords, newConsumerMemory } from '../../../functions/consumer/ingest';
import { storePluginConfig } from '../../helpers/plugin-configs';
import type { ExportMessage } from '../../../functions/shared/queue/export-message';
import { messageLimits } from '../../../functions/shared/queue/definitions';
import { captureRecord } from '../../helpers/capture-records';
import { consumerTables, tablesWithProject } from '../../helpers/consumer-tables';
import type { DynaliteTables } from '../../helpers/dynalite-tables';

const projectId = 7;
const exportsQueueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/test-exports';
const tables = { ...consumerTables, exportsQueueUrl };
const at = new Date('2024-03-01T12:00:05.000Z');
const sqs = mockClient(SQSClient);
let fake: DynaliteTables;

beforeEach(async () => {
  sqs.reset();
  sqs.on(SendMessageBatchCommand).resolves({ Successful: [], Failed: [] });
  fake = await tablesWithProject(projectId);
});

afterEach(async () => {
  await fake.stop();
});

const enableExport = (enabled = true) =>
  storePluginConfig('main', projectId, {
    plugin: 10,
    enabled,
    order: 1,
    config: { awsAccessKey: 'AKIA', awsSecretAccessKey: 's', awsRegion: 'eu-west-1', s3BucketName: 'b' },
    error: null,
  });

const record = (events: { event: string; properties?: object }[]): SQSRecord =>
  captureRecord(
    projectId,
    randomUUID(),
    events.map((event) => ({ ...event, distinctId: 'ada' })),
  );

const sentMessages = (): ExportMessage[] =>
  sqs
    .commandCalls(SendMessageBatchCommand)
    .flatMap((call) => call.args[0].input.Entries ?? [])
    .map((entry) => JSON.parse(entry.MessageBody!) as ExportMessage);

describe('the consumer hands stored events to the exports queue', () => {
  it('sends the stored events of a project with an enabled S3 Export, tagged with their message', async () => {
    // Prepare
    const { record: config } = await enableExport();
    const message = record([{ event: 'paid', properties: { amount: 5 } }, { event: 'left' }]);

    // Act
    const response = await ingestRecords([message], tables, newConsumerMemory(), at);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.every((call) => call.args[0].input.QueueUrl === exportsQueueUrl)).toBe(true);
    const [sent] = sentMessages();
    expect(sent).toMatchObject({
      v: 1,
      project_id: projectId,
      plugin_config_id: config.id,
      source: message.messageId,
    });
    expect(sent!.events.map((event) => event.event)).toEqual(['paid', 'left']);
    expect(sent!.events[0]).toMatchObject({
      distinct_id: 'ada',
      team_id: projectId,
      ip: '203.0.113.9',
      timestamp: '2024-03-01T12:00:00.000Z',
      properties: { amount: 5, $ip: '203.0.113.9' },
    });
  });

  it('sends nothing for a project whose S3 Export is disabled', async () => {
    // Prepare
    await enableExport(false);

    // Act
    const response = await ingestRecords([record([{ event: 'paid' }])], tables, newConsumerMemory(), at);

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toEqual([]);
  });

  it('splits what it hands over into messages within the queue size limit', async () => {
    // Prepare: 100 events of about 10 KB, 1 MB in all
    await enableExport();
    const events = Array.from({ length: 100 }, (_, n) => ({
      event: 'big',
      properties: { n, blob: 'x'.repeat(10_000) },
    }));

    // Act
    await ingestRecords([record(events)], tables, newConsumerMemory(), at);

    // Assess
    const bodies = sqs
      .commandCalls(SendMessageBatchCommand)
      .flatMap((call) => call.args[0].input.Entries ?? [])
      .map((entry) => entry.MessageBody!);
    expect(bodies.length).toBeGreaterThan(3);
    for (const body of bodies)
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(messageLimits.maxMessageBytes);
    expect(sentMessages().flatMap((sent) => sent.events)).toHaveLength(100);
  });

  it('leaves a message whose hand-off failed for SQS to retry, its events stored', async () => {
    // Prepare
    await enableExport();
    sqs.on(SendMessageBatchCommand).rejects(new Error('ServiceUnavailable'));
    const message = record([{ event: 'paid' }]);

    // Act
    const response = await ingestRecords([message], tables, newConsumerMemory(), at);

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: message.messageId }]);
    const stored = [...(await fake.items('events')).values()].filter((item) => item.SK === 'E');
    expect(stored).toHaveLength(1);
  });
});
