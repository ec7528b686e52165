import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lakeDatabase } from '../../functions/lake/parquet';
import { readableKeys } from '../../functions/shared/lake/listing';
import type { LocalServer } from './local-server';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export function lakeS3Of(server: LocalServer): S3Client {
  return new S3Client({
    endpoint: server.endpoints.s3Endpoint,
    region: 'us-east-1',
    credentials,
    forcePathStyle: true,
  });
}

/** The keys of every object under `prefix` in the server's lake bucket. */
export async function lakeKeys(server: LocalServer, prefix = 'events/'): Promise<string[]> {
  const s3 = lakeS3Of(server);
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: server.endpoints.lakeBucket,
        Prefix: prefix,
        ContinuationToken: token,
      }),
    );
    keys.push(...(page.Contents ?? []).map((object) => object.Key!));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  s3.destroy();
  return keys;
}

/**
 * Runs `sql` with DuckDB over the lake files a reader reads under `prefix`, read as the table `lake` (its Hive
 * partitions `project_id` and `date` as columns), the files downloaded to a temporary directory.
 */
export async function queryLake(
  server: LocalServer,
  sql: string,
  prefix = 'events/',
): Promise<Record<string, unknown>[]> {
  // What a reader reads: the listing rule (compacted files once committed, never a row twice).
  const keys = readableKeys(await lakeKeys(server, prefix));
  if (keys.length === 0) return [];
  const dir = mkdtempSync(join(tmpdir(), 'flock-lake-read-'));
  const s3 = lakeS3Of(server);
  try {
    for (const key of keys) {
      const object = await s3.send(new GetObjectCommand({ Bucket: server.endpoints.lakeBucket, Key: key }));
      const path = join(dir, key);
      mkdirSync(join(path, '..'), { recursive: true });
      writeFileSync(path, await object.Body!.transformToByteArray());
    }
    const { connection } = await lakeDatabase();
    await connection.run(
      `CREATE OR REPLACE TEMP VIEW lake AS SELECT * FROM read_parquet('${dir}/events/**/*.parquet', hive_partitioning = true)`,
    );
    return (await connection.runAndReadAll(sql)).getRowObjectsJson();
  } finally {
    s3.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Messages in the server's ingest and lake queues, visible or in flight. */
export async function pipelineBacklog(server: LocalServer): Promise<number> {
  const sqs = new SQSClient({
    endpoint: server.endpoints.sqsEndpoint,
    region: 'us-east-1',
    credentials,
    useQueueUrlAsEndpoint: false,
  });
  let total = 0;
  for (const queueUrl of [server.endpoints.queueUrl, server.endpoints.lakeQueueUrl]) {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: queueUrl,
        AttributeNames: [
          'ApproximateNumberOfMessages',
          'ApproximateNumberOfMessagesNotVisible',
          // Hand-offs wait out the lake's settle time before they are visible.
          'ApproximateNumberOfMessagesDelayed',
        ],
      }),
    );
    total +=
      Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
      Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0) +
      Number(Attributes?.ApproximateNumberOfMessagesDelayed ?? 0);
  }
  sqs.destroy();
  return total;
}
