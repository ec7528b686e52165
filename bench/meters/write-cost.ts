import { BroadcastChannel, workerData } from 'node:worker_threads';
import type { HandlerWrapper } from '../../bin/local/function-host';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { documentClient, lowLevelClient } from '../../functions/shared/db/client';
import { singleTable } from '../../functions/shared/db/schema';
import { sqsClient } from '../../functions/shared/queue/client';
import { lakeS3 } from '../../functions/lake/s3';
import { envNames } from '../../functions/shared/config';
import { writeUnits } from '../lib';
import type { Metered } from './metered';
import { meterChannel } from './metered';

/**
 * Loaded into every local function container before its handler (`functionPreload`): meters the
 * container's DynamoDB and SQS clients and broadcasts each call's cost to bench/write-cost.ts.
 * dynalite reports table write units but not GSI ones, so GSI copies are counted from the key
 * schema: a written item carrying an index's key costs its size again. Reads are metered too (their
 * consumed read units, by function and kind of item), and each invocation's duration.
 */
const chunkBytes = 64 * 1024;

type Item = Record<string, unknown>;

const gsiKeys = singleTable.globalSecondaryIndexes.map((index) => index.partitionKey);
const gsiUnits = (item: Item | undefined): number =>
  item ? gsiKeys.filter((key) => item[key] !== undefined).length * writeUnits(item) : 0;

/** A key as the document client holds it, or marshalled (`{S: …}`) once it reached the wire format. */
const keyText = (key: unknown): string =>
  typeof key === 'object' && key !== null && 'S' in key ? String(key.S) : String(key);
const kindOf = (key: unknown): string => keyText(key).split('#')[0] ?? '?';

const channel = new BroadcastChannel(meterChannel);
channel.unref();

function post(metered: Partial<Metered>): void {
  channel.postMessage({
    tableUnits: 0,
    gsiUnits: 0,
    byKind: {},
    sendChunks: 0,
    messageBytes: [],
    refusedWrites: {},
    ...metered,
  } satisfies Metered);
}

type Consumed = { CapacityUnits?: number };
/** A local function's name (`flock-consumer`) as the stack names its function (`consumer`). */
const shortName = (name: string): string => name.replace(/^flock-/, '');
/** The function this container runs (the local function host's worker data). */
const functionName = shortName(String((workerData as { functionName?: string } | null)?.functionName ?? '?'));

/** A read's consumed units, under its function and the kind of item it read (the first key's). */
function postReads(command: string, input: Item, output: { ConsumedCapacity?: Consumed | Consumed[] }): void {
  const consumed = output.ConsumedCapacity;
  const units = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
    (sum, entry) => sum + (entry.CapacityUnits ?? 0),
    0,
  );
  const firstKey =
    command === 'BatchGetItemCommand'
      ? Object.values(input.RequestItems as Record<string, { Keys: Item[] }>)[0]?.Keys[0]?.PK
      : command === 'GetItemCommand'
        ? (input.Key as Item | undefined)?.PK
        : 'query';
  post({ readUnits: { [`${functionName} ${kindOf(firstKey)}`]: units } });
}

/** Times each invocation of the container's handler (Lambda bills its duration by memory). */
export const wrapHandler: HandlerWrapper = (handler, name) => async (event, context) => {
  const startedAt = performance.now();
  try {
    return await handler(event, context);
  } finally {
    post({ invocationMs: { [shortName(name)]: performance.now() - startedAt } });
  }
};

/**
 * The meter of one client's calls; `documentForm` gives a call's input as the document client holds
 * it (the low-level client's items and keys are attribute values).
 */
async function metered<R extends { output: unknown }>(
  documentForm: (input: Item) => Item,
  command: string,
  input: Item & { ReturnConsumedCapacity?: string; ReturnValues?: string },
  call: () => Promise<R>,
): Promise<R> {
  const view = documentForm(input);
  // The document client runs the base client's commands (PutItemCommand…) with document-form input.
  const writes = /Put|Update|Delete|BatchWrite/.test(command);
  const reads = /^(Get|BatchGet|Query)/.test(command);
  if (writes) input.ReturnConsumedCapacity = 'INDEXES';
  if (reads) input.ReturnConsumedCapacity = 'TOTAL';
  if (command === 'UpdateItemCommand' && input.ReturnValues === undefined) input.ReturnValues = 'ALL_NEW';
  let result: R;
  try {
    result = await call();
  } catch (error) {
    if (writes && (error as Error).name === 'ConditionalCheckFailedException') {
      const key = (view.Key as Item | undefined)?.PK ?? (view.Item as Item | undefined)?.PK;
      post({ refusedWrites: { [kindOf(key)]: 1 } });
    }
    throw error;
  }
  if (reads) {
    postReads(command, view, result.output as { ConsumedCapacity?: Consumed | Consumed[] });
    return result;
  }
  if (!writes) return result;
  const output = result.output as {
    ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
    Attributes?: Item;
  };
  const consumed = output.ConsumedCapacity;
  const consumedList = Array.isArray(consumed) ? consumed : consumed ? [consumed] : [];
  const byKind: Record<string, number> = {};
  const addKind = (key: unknown, n: number): void => {
    byKind[kindOf(key)] = (byKind[kindOf(key)] ?? 0) + n;
  };
  let gsi = 0;
  if (command === 'BatchWriteItemCommand') {
    for (const requests of Object.values(
      view.RequestItems as Record<string, { PutRequest?: { Item: Item } }[]>,
    )) {
      for (const request of requests) {
        addKind(request.PutRequest?.Item.PK, writeUnits(request.PutRequest?.Item ?? {}));
        gsi += gsiUnits(request.PutRequest?.Item);
      }
    }
  } else {
    const key = (view.Key as Item | undefined)?.PK ?? (view.Item as Item | undefined)?.PK;
    addKind(key, consumedList[0]?.CapacityUnits ?? 1);
  }
  if (command === 'PutItemCommand') gsi += gsiUnits(view.Item as Item);
  if (command === 'UpdateItemCommand') gsi += gsiUnits(output.Attributes);
  post({
    tableUnits: consumedList.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0),
    gsiUnits: gsi,
    byKind,
  });
  return result;
}

/** A low-level batch call's input with its items and keys unmarshalled. */
function unmarshalled(input: Item): Item {
  const requests = input.RequestItems as Record<string, unknown> | undefined;
  if (!requests) return input;
  const table = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map((request: { PutRequest?: { Item: Record<string, AttributeValue> } }) =>
          request.PutRequest ? { PutRequest: { Item: unmarshall(request.PutRequest.Item) } } : request,
        )
      : {
          ...(value as Item),
          Keys: ((value as { Keys?: Record<string, AttributeValue>[] }).Keys ?? []).map((key) =>
            unmarshall(key),
          ),
        };
  return {
    ...input,
    RequestItems: Object.fromEntries(Object.entries(requests).map(([name, value]) => [name, table(value)])),
  };
}

const meterOptions = { step: 'initialize', name: 'benchWriteUnits' } as const;
documentClient.middlewareStack.add(
  (next, context) => (args) =>
    metered(
      (input) => input,
      context.commandName ?? '',
      args.input as Item,
      () => next(args),
    ),
  meterOptions,
);
lowLevelClient.middlewareStack.add(
  (next, context) => (args) =>
    metered(unmarshalled, context.commandName ?? '', args.input as Item, () => next(args)),
  meterOptions,
);

sqsClient.middlewareStack.add(
  (next) => async (args) => {
    const input = args.input as { QueueUrl?: string; Entries?: { MessageBody?: string }[] };
    const bodies = (input.Entries ?? []).map((entry) => Buffer.byteLength(entry.MessageBody ?? ''));
    if (input.QueueUrl !== undefined && input.QueueUrl === process.env[envNames.lakeQueueUrl]) {
      // The lake queue's requests are counted apart from ingestion's.
      const result = await next(args);
      const received = ((result.output as { Messages?: { Body?: string }[] }).Messages ?? []).map((message) =>
        Buffer.byteLength(message.Body ?? ''),
      );
      const payload = [...bodies, ...received].reduce((a, b) => a + b, 0);
      post({ lakeRequests: Math.max(1, Math.ceil(payload / chunkBytes)) });
      return result;
    }
    post({
      messageBytes: bodies,
      sendChunks: Math.max(1, Math.ceil(bodies.reduce((a, b) => a + b, 0) / chunkBytes)),
    });
    return next(args);
  },
  { step: 'initialize', name: 'benchSqsRequests' },
);

lakeS3.middlewareStack.add(
  (next, context) => async (args) => {
    const result = await next(args);
    if (context.commandName === 'PutObjectCommand') {
      const body = (args.input as { Body?: Uint8Array | string }).Body;
      post({
        lakePuts: 1,
        lakeBytes: typeof body === 'string' ? Buffer.byteLength(body) : (body?.length ?? 0),
      });
    }
    return result;
  },
  { step: 'initialize', name: 'benchLakePuts' },
);
