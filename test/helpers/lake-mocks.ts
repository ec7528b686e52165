import { HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import type { SendMessageBatchCommandInput } from '@aws-sdk/client-sqs';
import { DeleteMessageBatchCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import { mockClient } from 'aws-sdk-client-mock';
import type { ConsumerTables } from '../../functions/consumer/types';
import type { LakeSettings } from '../../functions/lake/flush';
import { lakeS3 } from '../../functions/lake/s3';
import { lakeFlush } from '../../functions/shared/queue/definitions';
import { consumerTables, tablesWithProject } from './consumer-tables';
import type { DynaliteTables } from './dynalite-tables';

/** What the mocked lake queue and bucket received. */
export interface LakeMocks {
  /** The lake queue's messages as sent (the consumer's hand-offs), with their delays. */
  readonly sent: { body: string; delaySeconds: number | undefined }[];
  /** The lake bucket: key → object. */
  readonly objects: Map<string, Buffer>;
  readonly sqs: AwsClientStub<SQSClient>;
}

/**
 * SQS and the lake's S3 client mocked for the consumer's hand-off and the lake writer's flush: sends
 * are recorded, deletes succeed, and the bucket is a map (HEAD finds what was put, listings are
 * empty). Call `reset` before each test.
 */
export function lakeMocks(): LakeMocks & { reset(): void } {
  const sqs = mockClient(SQSClient);
  const s3 = mockClient(lakeS3);
  const sent: LakeMocks['sent'] = [];
  const objects = new Map<string, Buffer>();
  const reset = (): void => {
    sqs.reset();
    s3.reset();
    sent.length = 0;
    objects.clear();
    sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => {
      for (const entry of input.Entries ?? [])
        sent.push({ body: entry.MessageBody!, delaySeconds: entry.DelaySeconds });
      return { Successful: [], Failed: [] };
    });
    sqs.on(DeleteMessageBatchCommand).resolves({ Successful: [], Failed: [] });
    s3.on(PutObjectCommand).callsFake((input: { Key: string; Body: Buffer }) => {
      objects.set(input.Key, input.Body);
      return {};
    });
    s3.on(HeadObjectCommand).callsFake((input: { Key: string }) => {
      if (objects.has(input.Key)) return {};
      throw Object.assign(new Error('not found'), { name: 'NotFound' });
    });
    s3.on(ListObjectsV2Command).resolves({ Contents: [] });
  };
  return { sent, objects, sqs, reset };
}

/**
 * A project's consumer tables on an in-memory DynamoDB (dynalite, fresh for each test), with the lake
 * queue and bucket mocked (`lakeMocks`): the consumer's tables with a lake queue, and the lake
 * writer's settings over them. Registers its own `beforeEach` and `afterEach`; `fake` is the current
 * test's DynamoDB.
 */
export function lakeTestBed(
  projectId: number,
  settleSeconds: number,
): LakeMocks & {
  readonly tables: ConsumerTables;
  readonly settings: LakeSettings;
  fake: DynaliteTables;
} {
  const queueUrl = 'https://sqs.us-east-1.amazonaws.com/123456789012/test-lake';
  const { reset, ...mocks } = lakeMocks();
  const bed = {
    ...mocks,
    tables: { ...consumerTables, lakeQueueUrl: queueUrl, lakeSettleSeconds: settleSeconds },
    settings: {
      queueUrl,
      bucket: 'test-lake-bucket',
      tableName: consumerTables.singleTable,
      eventsTable: consumerTables.eventsTable,
      flushEvents: lakeFlush.flushEvents,
      visibilitySeconds: 1_800,
      settleSeconds,
    },
    fake: undefined as unknown as DynaliteTables,
  };
  beforeEach(async () => {
    bed.fake = await tablesWithProject(projectId);
    reset();
  });
  afterEach(async () => {
    await bed.fake.stop();
  });
  return bed;
}
