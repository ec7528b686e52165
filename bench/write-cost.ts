import '../bin/local/quiet-sdk';
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLocalFlock } from '../bin/local/flock';
import { documentClient } from '../functions/shared/db/client';
import { singleTable } from '../functions/shared/db/schema';
import { sqsClient } from '../functions/shared/queue/client';
import { report, round, sampleEvent, writeUnits } from './lib';

/**
 * Write cost of ingestion, through the real local pipeline: DynamoDB write units and billed SQS
 * requests per event, for /batch/ requests of 50 ~1 KB events from a pool of users who come back
 * (as real traffic does). dynalite reports table write units but not GSI ones, so GSI copies are
 * counted from the key schema: a written item carrying an index's key costs its size again.
 * SQS bills each 64 KB of payload as one request; the event source's receives (10 messages each)
 * and deletes are counted from the messages' sizes. Targets: ≤ 2.0 write units and ≤ 0.05 SQS
 * requests per event.
 */
const requests = Number(process.env.BENCH_REQUESTS ?? 60);
const perRequest = 50;
const users = 200;
const chunkBytes = 64 * 1024;

type Item = Record<string, unknown>;

const units = writeUnits;
const gsiKeys = singleTable.globalSecondaryIndexes.map((index) => index.partitionKey);
const gsiUnits = (item: Item | undefined): number =>
  item ? gsiKeys.filter((key) => item[key] !== undefined).length * units(item) : 0;

const counted = { tableUnits: 0, gsiUnits: 0, sendChunks: 0, messageBytes: [] as number[] };
/** Write units by kind of item (the first segment of its partition key). */
const byKind = new Map<string, number>();
/** A key as the document client holds it, or marshalled (`{S: …}`) once it reached the wire format. */
const keyText = (key: unknown): string =>
  typeof key === 'object' && key !== null && 'S' in key ? String(key.S) : String(key);
const kindOf = (key: unknown): string => keyText(key).split('#')[0] ?? '?';
const addKind = (key: unknown, n: number): void => {
  byKind.set(kindOf(key), (byKind.get(kindOf(key)) ?? 0) + n);
};

function countWrites(): void {
  documentClient.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Item & { ReturnConsumedCapacity?: string; ReturnValues?: string };
      // The document client runs the base client's commands (PutItemCommand…) with document-form input.
      const command = context.commandName ?? '';
      const writes = /Put|Update|Delete|BatchWrite/.test(command);
      if (writes) input.ReturnConsumedCapacity = 'INDEXES';
      if (command === 'UpdateItemCommand' && input.ReturnValues === undefined) input.ReturnValues = 'ALL_NEW';
      const result = await next(args);
      if (!writes) return result;
      const output = result.output as {
        ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
        Attributes?: Item;
      };
      const consumed = output.ConsumedCapacity;
      for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
        counted.tableUnits += entry.CapacityUnits ?? 0;
      }
      if (command === 'BatchWriteItemCommand') {
        for (const requests of Object.values(
          input.RequestItems as Record<string, { PutRequest?: { Item: Item } }[]>,
        )) {
          for (const request of requests)
            addKind(request.PutRequest?.Item.PK, units(request.PutRequest?.Item ?? {}));
        }
      } else {
        const key = (input.Key as Item | undefined)?.PK ?? (input.Item as Item | undefined)?.PK;
        addKind(key, (Array.isArray(consumed) ? consumed[0] : consumed)?.CapacityUnits ?? 1);
      }
      if (command === 'PutItemCommand') counted.gsiUnits += gsiUnits(input.Item as Item);
      if (command === 'UpdateItemCommand') counted.gsiUnits += gsiUnits(output.Attributes);
      if (command === 'BatchWriteItemCommand') {
        for (const requests of Object.values(
          input.RequestItems as Record<string, { PutRequest?: { Item: Item } }[]>,
        )) {
          for (const request of requests) counted.gsiUnits += gsiUnits(request.PutRequest?.Item);
        }
      }
      return result;
    },
    { step: 'initialize', name: 'benchWriteUnits' },
  );
  sqsClient.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Entries?: { MessageBody?: string }[] };
      const bodies = (input.Entries ?? []).map((entry) => Buffer.byteLength(entry.MessageBody ?? ''));
      counted.messageBytes.push(...bodies);
      counted.sendChunks += Math.max(1, Math.ceil(bodies.reduce((a, b) => a + b, 0) / chunkBytes));
      return next(args);
    },
    { step: 'initialize', name: 'benchSqsRequests' },
  );
}

/** What the event source's receives (10 messages each) and deletes (10 per call) are billed. */
function consumerRequests(messageBytes: readonly number[]): number {
  let requests = 0;
  for (let i = 0; i < messageBytes.length; i += 10) {
    const group = messageBytes.slice(i, i + 10);
    requests += Math.max(1, Math.ceil(group.reduce((a, b) => a + b, 0) / chunkBytes)) + 1;
  }
  return requests;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'flock-bench-'));
  const flock = await startLocalFlock({ dataDir, memory: true, port: 0, logLevel: 'ERROR' });
  const { apiUrl, projectApiKey } = flock.credentials;
  const sqs = new SQSClient({
    endpoint: flock.endpoints.sqsEndpoint,
    region: 'us-east-1',
    useQueueUrlAsEndpoint: false,
  });
  countWrites();

  for (let r = 0; r < requests; r++) {
    const batch = Array.from({ length: perRequest }, (_, i) => sampleEvent(r * perRequest + i, users));
    const response = await fetch(`${apiUrl}/batch/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ api_key: projectApiKey, batch }),
    });
    if (response.status !== 200) throw new Error(`capture answered ${response.status}`);
  }
  for (;;) {
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: flock.endpoints.queueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    if (
      Number(Attributes?.ApproximateNumberOfMessages) +
        Number(Attributes?.ApproximateNumberOfMessagesNotVisible) ===
      0
    )
      break;
    await sleep(50);
  }

  const events = requests * perRequest;
  const sqsRequests = counted.sendChunks + consumerRequests(counted.messageBytes);
  report(
    `write cost: ${requests} × /batch/ of ${perRequest} ~1 KB events, ${users} returning users`,
    {
      'DynamoDB write units per event': round((counted.tableUnits + counted.gsiUnits) / events),
      '  of which GSI (from the key schema)': round(counted.gsiUnits / events, 3),
      'SQS requests per event': round(sqsRequests / events, 3),
      '  send (64 KB chunks)': counted.sendChunks,
      '  receive + delete (event source)': consumerRequests(counted.messageBytes),
      ...Object.fromEntries(
        [...byKind].sort().map(([kind, n]) => [`  units per event: ${kind}`, round(n / events, 3)]),
      ),
    },
    '≤ 2.0 write units, ≤ 0.05 SQS requests',
  );
  sqs.destroy();
  await flock.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
