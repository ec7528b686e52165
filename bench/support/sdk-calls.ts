import '../../bin/local/quiet-sdk';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fork } from 'node:child_process';
import { benchSetting, report, round, sampleEvent } from '../lib';

/**
 * The client CPU of one SDK call of each kind paid per event (docs/consumer.md, "SDK clients per
 * request"), through the shared clients and through the SDK's defaults, against a trivial HTTP
 * server in a child process (which answers every call at once): SendMessageBatch of one capture
 * message of 100 of bench/lib's events (about 94 KB) and of a 200-byte body, `batchPutAll` of 25
 * event-like items (about 1 KB, a 600-byte binary attribute) and `batchGetItems` of 100 keys, each
 * through the document client and the low-level one. The variants run interleaved in one process,
 * `BENCH_ROUNDS` rounds after three of warm-up; each prints the median µs of CPU per call
 * (`process.cpuUsage`, the client's process only) and the ratio of the shared client's to the
 * default's.
 *
 *   npx tsx bench/support/sdk-calls.ts
 */
const rounds = benchSetting('BENCH_ROUNDS', 7, 3);
const callsPerRound = benchSetting('BENCH_CALLS', 200, 50);

/** The child: answers each request as SQS or DynamoDB would, for nothing left over. */
function server(): void {
  createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      let answer: object = { UnprocessedItems: {} };
      if (target.endsWith('.SendMessageBatch')) {
        const { Entries } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          Entries: { Id: string; MessageBody: string }[];
        };
        answer = {
          Successful: Entries.map(({ Id, MessageBody }) => ({
            Id,
            MessageId: Id,
            MD5OfMessageBody: createHash('md5').update(MessageBody).digest('hex'),
          })),
        };
      } else if (target.endsWith('.BatchGetItem')) answer = { Responses: {}, UnprocessedKeys: {} };
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify(answer));
    });
  }).listen(0, '127.0.0.1', function (this: { address(): AddressInfo }) {
    process.send!(this.address().port);
  });
}

const eventItem = (i: number): Record<string, unknown> & { PK: string; SK: string } => ({
  PK: `E#1#0190a1b2-c3d4-7e5f-8a9b-${String(i).padStart(12, '0')}`,
  SK: 'E',
  uuid: `0190a1b2-c3d4-7e5f-8a9b-${String(i).padStart(12, '0')}`,
  project: 1,
  event: '$pageview',
  distinct_id: `user-${i % 200}`,
  ts: '2026-11-28T01:00:00.000Z',
  created_at: '2026-11-28T01:00:00.000Z',
  owner: 'abcdefghijklmnop',
  pd: randomBytes(600),
  src: 'abcdefghijklmn',
});

async function main(): Promise<void> {
  const child = fork(__filename, ['--server'], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(m as number)));
  const endpoint = `http://127.0.0.1:${port}`;
  // The shared clients read their endpoints from the environment as they load, as on Lambda.
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SQS: endpoint,
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
  });
  const { sqsClient } = await import('../../functions/shared/queue/client');
  const { batchGetItems, batchPutAll } = await import('../../functions/shared/db/operations');
  const defaultSqs = new SQSClient({ useQueueUrlAsEndpoint: false });

  const queueUrl = `${endpoint}/123456789012/bench`;
  const message = JSON.stringify({
    v: 1,
    project_id: 1,
    events: Array.from({ length: 100 }, (_, i) => ({ uuid: 'u', distinct_id: 'd', data: sampleEvent(i) })),
  });
  const send = (client: SQSClient, body: string) => () =>
    client.send(
      new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: [{ Id: '0', MessageBody: body }] }),
    );
  const puts = Array.from({ length: 25 }, (_, i) => ({ item: eventItem(i), tag: 'm' }));
  const keys = Array.from({ length: 100 }, (_, i) => ({ PK: `E#1#${i}`, SK: 'E' }));
  const projection = { expression: '#p', names: { '#p': 'project' } };

  /** Each kind of call: the default (as before) and the shared client's way. */
  const kinds: Record<string, Record<'default' | 'shared', () => Promise<unknown>>> = {
    'SQS SendMessageBatch, 94 KB message': {
      default: send(defaultSqs, message),
      shared: send(sqsClient, message),
    },
    'SQS SendMessageBatch, 200 B message': {
      default: send(defaultSqs, 'x'.repeat(200)),
      shared: send(sqsClient, 'x'.repeat(200)),
    },
    'BatchWriteItem of 25 event items': {
      default: () => batchPutAll('bench', puts, 1, 'document'),
      shared: () => batchPutAll('bench', puts, 1, 'low-level'),
    },
    'BatchGetItem of 100 keys': {
      default: () => batchGetItems('bench', keys, true, projection, 'document'),
      shared: () => batchGetItems('bench', keys, true, projection, 'low-level'),
    },
  };

  const perCall: Record<string, number[]> = {};
  for (let round_ = 0; round_ < rounds + 3; round_++)
    for (const [kind, variants] of Object.entries(kinds))
      for (const [variant, call] of Object.entries(variants)) {
        const started = process.cpuUsage();
        for (let i = 0; i < callsPerRound; i++) await call();
        const { user, system } = process.cpuUsage(started);
        if (round_ >= 3) (perCall[`${kind}: ${variant}`] ??= []).push((user + system) / callsPerRound);
      }
  child.kill();

  const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
  const figures: Record<string, number> = {};
  for (const kind of Object.keys(kinds)) {
    const before = median(perCall[`${kind}: default`]!);
    const after = median(perCall[`${kind}: shared`]!);
    figures[`${kind}: default µs`] = Math.round(before);
    figures[`${kind}: shared µs`] = Math.round(after);
    figures[`${kind}: ratio`] = round(after / before);
  }
  report('client CPU per SDK call (shared clients vs SDK defaults)', figures, 'none (compare clients)', {
    figure: 'see the ratios',
    met: true,
  });
}

(process.argv.includes('--server') ? Promise.resolve(server()) : main()).catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
