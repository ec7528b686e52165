import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
} from '@aws-sdk/client-dynamodb';
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeDynaliteIterators } from './dynalite-iterators';
import type { TableDefinition } from '../../functions/shared/db/schema';
import { tables } from '../../functions/shared/db/schema';
import {
  deadLetterQueue,
  exportsDeadLetterQueue,
  exportsQueue,
  ingestQueue,
  lakeDeadLetterQueue,
  lakeQueue,
  queryRunsDeadLetterQueue,
  queryRunsQueue,
} from '../../functions/shared/queue/definitions';

/** The local lake bucket, in the embedded S3 (the stack's bucket has a generated name). */
export const localLakeBucket = 'flock-lake';

export interface Emulators {
  readonly dynamodbEndpoint: string;
  readonly sqsEndpoint: string;
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly deadLetterQueueUrl: string;
  readonly exportsQueueUrl: string;
  readonly exportsQueueArn: string;
  readonly exportsDeadLetterQueueUrl: string;
  readonly lakeQueueUrl: string;
  readonly lakeDeadLetterQueueUrl: string;
  /** Async query runs, for the query function (lib/query-runs.ts). */
  readonly queryRunsQueueUrl: string;
  readonly queryRunsQueueArn: string;
  /** fauxqs's S3, on the SQS emulator's port: path-style (`s3ForcePathStyle`), any credentials. */
  readonly s3Endpoint: string;
  stop(): Promise<void>;
}

/** The same table the CDK stack creates, from the same definition. */
export function createTableInput(definition: TableDefinition): CreateTableCommandInput {
  const attributes = new Set([definition.partitionKey, definition.sortKey]);
  for (const index of definition.globalSecondaryIndexes) {
    attributes.add(index.partitionKey);
    attributes.add(index.sortKey);
  }
  return {
    TableName: definition.name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: definition.partitionKey, KeyType: 'HASH' },
      { AttributeName: definition.sortKey, KeyType: 'RANGE' },
    ],
    ...(definition.globalSecondaryIndexes.length > 0
      ? {
          GlobalSecondaryIndexes: definition.globalSecondaryIndexes.map((index) => ({
            IndexName: index.indexName,
            KeySchema: [
              { AttributeName: index.partitionKey, KeyType: 'HASH' },
              { AttributeName: index.sortKey, KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          })),
        }
      : {}),
  };
}

const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/** What Flock uses of fauxqs's Fastify app. */
interface FauxqsApp {
  listen(options: { port: number; host: string }): Promise<string>;
  readonly server: { address(): AddressInfo | string | null };
  close(): Promise<void>;
}

/** A started server: where to reach it, and how to stop it. */
export interface EmulatorServer {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** Where a listener on `host` is reached from this machine (a wildcard address through loopback). */
const reachableHost = (host: string): string =>
  host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;

/** dynalite on `host` (DynamoDB kept under `path`, or in memory). */
export async function startDynalite(path: string | undefined, host = '127.0.0.1'): Promise<EmulatorServer> {
  const { default: dynalite } = await import('dynalite');
  closeDynaliteIterators();
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${reachableHost(host)}:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Creates a table in dynalite and returns once it is ACTIVE. dynalite makes a table ACTIVE on a timer
 * (even with createTableMs 0), and a request that comes before it is refused as ResourceNotFound: on a
 * loaded machine the first write after CreateTable can.
 */
export async function createActiveTable(
  client: DynamoDBClient,
  input: CreateTableCommandInput,
): Promise<void> {
  try {
    await client.send(new CreateTableCommand(input));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  while (
    (await client.send(new DescribeTableCommand({ TableName: input.TableName }))).Table?.TableStatus !==
    'ACTIVE'
  )
    await sleep(1);
}

async function createTables(endpoint: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: localCredentials });
  for (const definition of tables) await createActiveTable(client, createTableInput(definition));
  client.destroy();
}

interface QueuePairDefinition {
  readonly queue: { readonly name: string; readonly retentionDays: number; readonly maxReceiveCount: number };
  readonly deadLetterQueue: { readonly name: string; readonly retentionDays: number };
}

/** A queue and its DLQ, as lib/queues.ts creates them on AWS (redrive after `maxReceiveCount`). */
async function createQueuePair(
  client: SQSClient,
  pair: QueuePairDefinition,
  visibilityTimeoutSeconds: number,
) {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: pair.deadLetterQueue.name,
      Attributes: { MessageRetentionPeriod: String(pair.deadLetterQueue.retentionDays * 86400) },
    }),
  );
  const dlqArn = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: dlq.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: pair.queue.name,
      Attributes: {
        VisibilityTimeout: String(visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(pair.queue.retentionDays * 86400),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlqArn.Attributes?.QueueArn,
          maxReceiveCount: pair.queue.maxReceiveCount,
        }),
      },
    }),
  );
  const queueArn = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queue.QueueUrl, AttributeNames: ['QueueArn'] }),
  );
  return {
    queueUrl: queue.QueueUrl!,
    queueArn: queueArn.Attributes!.QueueArn!,
    deadLetterQueueUrl: dlq.QueueUrl!,
  };
}

async function createQueues(
  endpoint: string,
  visibilityTimeoutSeconds: number,
  lakeVisibilityTimeoutSeconds: number,
) {
  const client = new SQSClient({
    endpoint,
    region: 'us-east-1',
    credentials: localCredentials,
    useQueueUrlAsEndpoint: false,
  });
  const ingest = await createQueuePair(
    client,
    { queue: ingestQueue, deadLetterQueue },
    visibilityTimeoutSeconds,
  );
  const exports = await createQueuePair(
    client,
    { queue: exportsQueue, deadLetterQueue: exportsDeadLetterQueue },
    exportsQueue.visibilityTimeoutSeconds,
  );
  const lake = await createQueuePair(
    client,
    { queue: lakeQueue, deadLetterQueue: lakeDeadLetterQueue },
    lakeVisibilityTimeoutSeconds,
  );
  const queryRuns = await createQueuePair(
    client,
    { queue: queryRunsQueue, deadLetterQueue: queryRunsDeadLetterQueue },
    queryRunsQueue.visibilityTimeoutSeconds,
  );
  client.destroy();
  return {
    ...ingest,
    queryRunsQueueUrl: queryRuns.queueUrl,
    queryRunsQueueArn: queryRuns.queueArn,
    exportsQueueUrl: exports.queueUrl,
    exportsQueueArn: exports.queueArn,
    exportsDeadLetterQueueUrl: exports.deadLetterQueueUrl,
    lakeQueueUrl: lake.queueUrl,
    lakeDeadLetterQueueUrl: lake.deadLetterQueueUrl,
  };
}

/**
 * dynalite (DynamoDB, on disk under `dynamodbPath` or in memory) and fauxqs (SQS and S3, in memory),
 * in this process, with Flock's tables and queues created from the CDK stacks' own definitions.
 * fauxqs answers S3 on the same port (path-style), so an S3 Export config pointed at it really uploads.
 */
export async function startEmulators(options: {
  readonly dynamodbPath: string | undefined;
  readonly visibilityTimeoutSeconds: number;
  /** The lake queue's visibility timeout (the lake function passes the same when it receives). */
  readonly lakeVisibilityTimeoutSeconds: number;
  /** The address both listen on (127.0.0.1 unless `npm start -- --host` says otherwise). */
  readonly host?: string;
}): Promise<Emulators> {
  const host = options.host ?? '127.0.0.1';
  const dynamodb = await startDynalite(options.dynamodbPath, host);
  // fauxqs's own `startFauxqs` listens on every interface; its app is started here on `host` only.
  const { buildApp } = await import('fauxqs');
  const sqs = buildApp({ logger: false }) as unknown as FauxqsApp;
  await sqs.listen({ port: 0, host });
  const { port } = sqs.server.address() as AddressInfo;
  // fauxqs names queues after the Host it is reached by (`sqs.<region>.<host>`): `localhost` keeps
  // those URLs valid, where an IP address would not be.
  const sqsEndpoint = `http://${host === '127.0.0.1' || host === '0.0.0.0' ? 'localhost' : reachableHost(host)}:${port}`;
  await createTables(dynamodb.endpoint);
  const queues = await createQueues(
    sqsEndpoint,
    options.visibilityTimeoutSeconds,
    options.lakeVisibilityTimeoutSeconds,
  );
  // An IP address: fauxqs reads a dotted host name as a virtual-hosted bucket (`bucket.host`).
  const s3Endpoint = `http://${reachableHost(host)}:${port}`;
  const s3 = new S3Client({
    endpoint: s3Endpoint,
    region: 'us-east-1',
    credentials: localCredentials,
    forcePathStyle: true,
  });
  await s3.send(new CreateBucketCommand({ Bucket: localLakeBucket }));
  s3.destroy();
  return {
    dynamodbEndpoint: dynamodb.endpoint,
    sqsEndpoint,
    s3Endpoint,
    ...queues,
    stop: async () => {
      await sqs.close();
      await dynamodb.stop();
    },
  };
}
