import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  ConditionalCheckFailedException,
  DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import type { ServiceInputTypes, ServiceOutputTypes } from '@aws-sdk/lib-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import { mockClient } from 'aws-sdk-client-mock';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import dynalite from 'dynalite';
import type { AddressInfo } from 'node:net';
import { createActiveTable, createTableInput } from '../../bin/local/emulators';
import { lowLevelClient } from '../../functions/shared/db/client';
import { documentMarshalling } from '../../functions/shared/db/marshall';
import type { TableDefinition } from '../../functions/shared/db/schema';
import { eventsTable, singleTable } from '../../functions/shared/db/schema';
import type { DocumentCommandClass } from './dynalite-wire';
import { DynaliteWire } from './dynalite-wire';

/**
 * A real (embedded, in-memory) DynamoDB for tests of conditional, replayable write protocols: dynalite
 * evaluates every condition, key and update expression, so the code under test meets DynamoDB's own
 * semantics. The code's client is intercepted with `mockClient` only to forward every command to
 * dynalite (`dynalite-wire.ts`), to inject failures and throttling, and to record each write and
 * its write units.
 */

type Item = Record<string, unknown>;
type Wire = Record<string, AttributeValue>;

const mapValues = <A, B>(record: Record<string, A> | undefined, map: (value: A) => B): Record<string, B> =>
  Object.fromEntries(Object.entries(record ?? {}).map(([name, value]) => [name, map(value)]));
const toWire = (item: Item): Wire => marshall(item, documentMarshalling);

interface WriteRecord {
  readonly table: string;
  readonly kind: 'put' | 'update' | 'batch-put';
  /** `PK SK` */
  readonly key: string;
  units: number;
  conditionFailed: boolean;
}

function attributeSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') return Math.ceil(String(value).replace(/^-|\./g, '').length / 2) + 1;
  if (value instanceof Uint8Array) return value.length;
  if (Array.isArray(value))
    return 3 + value.reduce<number>((sum, element) => sum + 1 + attributeSize(element), 0);
  if (value instanceof Set)
    return [...value].reduce<number>((sum, element) => sum + attributeSize(element), 0);
  return (
    3 +
    Object.entries(value as Item).reduce(
      (sum, [name, element]) => sum + Buffer.byteLength(name) + 1 + attributeSize(element),
      0,
    )
  );
}

/** DynamoDB's item size: attribute names plus values (what write units are billed on, per started KB). */
export function itemSize(item: Item): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + attributeSize(value),
    0,
  );
}

const writeUnits = (bytes: number): number => Math.max(1, Math.ceil(bytes / 1024));

/** Units of one write, counting a GSI1 copy when the item carries GSI1 keys (projection ALL). */
function unitsOf(before: Item | undefined, after: Item | undefined): number {
  const size = Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0);
  const indexed = (item: Item | undefined): boolean => item?.GSI1PK !== undefined;
  const gsi = indexed(before) || indexed(after) ? writeUnits(after ? itemSize(after) : 0) : 0;
  return writeUnits(size) + gsi;
}

/** Which definition a test's table name stands for: names with `events` in them are the events table. */
const definitionOf = (name: string): TableDefinition => (name.includes('events') ? eventsTable : singleTable);

export class DynaliteTables {
  readonly mock: AwsClientStub<DynamoDBDocumentClient>;
  /** The low-level client the batch calls paid per event take (db/client.ts), forwarded the same way. */
  readonly lowLevelMock: AwsClientStub<DynamoDBClient>;
  readonly writes: WriteRecord[] = [];
  private attempts = 0;
  /** Decides, for each write attempt (counted from 1), whether it throws instead; may change the tables first. */
  failWrite:
    ((attempt: number, description: string) => Promise<Error | undefined> | Error | undefined) | undefined;
  /** Items of a BatchWriteItem call this says yes to come back as `UnprocessedItems` (throttled). */
  leaveUnprocessed: ((description: string) => boolean) | undefined;

  private constructor(
    private readonly server: ReturnType<typeof dynalite>,
    private readonly wire: DynaliteWire,
  ) {
    this.mock = mockClient(DynamoDBDocumentClient);
    this.lowLevelMock = mockClient(lowLevelClient);
    this.install();
  }

  /** A fresh in-memory dynalite with these tables, shaped as the stack's (schema.ts). */
  static async start(tableNames: readonly string[]): Promise<DynaliteTables> {
    const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const wire = DynaliteWire.of(server, { removeUndefinedValues: true, convertClassInstanceToMap: false });
    const tables = new DynaliteTables(server, wire);
    await tables.create(tableNames);
    return tables;
  }

  /** More tables in the same dynalite: fresh ones for another case of the same file, without a restart. */
  async create(tableNames: readonly string[]): Promise<void> {
    // Over HTTP, through the helper the local server creates its tables with (it waits for ACTIVE).
    const { port } = this.server.address() as AddressInfo;
    const client = new DynamoDBClient({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      for (const name of tableNames)
        await createActiveTable(client, { ...createTableInput(definitionOf(name)), TableName: name });
    } finally {
      client.destroy();
    }
  }

  /** Gives the code's client back its real `send` and stops dynalite. */
  async stop(): Promise<void> {
    this.mock.restore();
    this.lowLevelMock.restore();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private send<O = ServiceOutputTypes>(Command: DocumentCommandClass, input: ServiceInputTypes): Promise<O> {
    return this.wire.send<O>(Command, input);
  }

  private install(): void {
    // One behaviour that picks the command's handler by its class: a behaviour per command (`on`)
    // had sinon compare every call with each command's matcher, a tenth of a test's CPU.
    const handlers = new Map<unknown, (input: never) => Promise<unknown>>();
    const on = <C extends new (input: never) => { input: ServiceInputTypes }>(
      Command: C,
      handle: (input: ConstructorParameters<C>[0]) => Promise<unknown>,
    ): void => {
      handlers.set(Command, handle);
    };
    this.mock.send.callsFake(
      (command) => handlers.get(command.constructor)?.(command.input as never) as Promise<ServiceOutputTypes>,
    );
    const forward =
      <C extends new (input: never) => { input: ServiceInputTypes }>(Command: C) =>
      (input: ConstructorParameters<C>[0]) =>
        this.send(Command, input);
    on(GetCommand, forward(GetCommand));
    on(BatchGetCommand, forward(BatchGetCommand));
    on(QueryCommand, forward(QueryCommand));
    on(ScanCommand, forward(ScanCommand));
    on(DeleteCommand, forward(DeleteCommand));
    on(PutCommand, (input) => this.write(input.TableName!, 'put', input.Item!, () => this.put(input)));
    on(UpdateCommand, (input) =>
      this.write(input.TableName!, 'update', input.Key!, async () => {
        // An update returns one image: the item before it is read first.
        const before = await this.get(input.TableName!, {
          PK: String(input.Key!.PK),
          SK: String(input.Key!.SK),
        });
        const result = await this.send<{ Attributes?: Item }>(UpdateCommand, {
          ...input,
          ReturnValues: 'ALL_NEW',
        });
        const asked = input.ReturnValues === 'ALL_NEW' || input.ReturnValues === 'UPDATED_NEW';
        return { output: asked ? { Attributes: result.Attributes } : {}, before, after: result.Attributes };
      }),
    );
    on(BatchWriteCommand, async (input) => {
      const UnprocessedItems: Record<string, { PutRequest: { Item: Item } }[]> = {};
      for (const [table, requests] of Object.entries(input.RequestItems ?? {})) {
        for (const request of requests) {
          const item = request.PutRequest!.Item!;
          if (
            this.leaveUnprocessed?.(
              `batch-put ${table} ${String(item.PK)} ${String(item.SK)} ${String(item.owner)} distinct_id=${String(item.distinct_id)}`,
            )
          ) {
            (UnprocessedItems[table] ??= []).push({ PutRequest: { Item: item } });
            continue;
          }
          await this.write(table, 'batch-put', item, () => this.put({ TableName: table, Item: item }));
        }
      }
      return { UnprocessedItems };
    });
    this.installLowLevel(handlers);
  }

  /**
   * The low-level client's batch calls, as the document client's commands of the same operation (the
   * same recording, failures and throttling): items unmarshalled on the way in, marshalled back out.
   */
  private installLowLevel(handlers: Map<unknown, (input: never) => Promise<unknown>>): void {
    const handle = <O>(Command: unknown, input: unknown): Promise<O> =>
      handlers.get(Command)!(input as never) as Promise<O>;
    this.lowLevelMock.send.callsFake(async (command: { input: unknown }) => {
      if (command instanceof BatchWriteItemCommand) {
        const output = await handle<{ UnprocessedItems?: Record<string, { PutRequest: { Item: Item } }[]> }>(
          BatchWriteCommand,
          {
            RequestItems: mapValues(command.input.RequestItems, (requests) =>
              requests.map((request) => ({ PutRequest: { Item: unmarshall(request.PutRequest!.Item!) } })),
            ),
          },
        );
        return {
          UnprocessedItems: mapValues(output.UnprocessedItems, (requests) =>
            requests.map((request) => ({ PutRequest: { Item: toWire(request.PutRequest.Item) } })),
          ),
          $metadata: { httpStatusCode: 200 },
        };
      }
      if (command instanceof BatchGetItemCommand) {
        const output = await handle<{
          Responses?: Record<string, Item[]>;
          UnprocessedKeys?: Record<string, { Keys?: Item[] }>;
        }>(BatchGetCommand, {
          RequestItems: mapValues(command.input.RequestItems, ({ Keys, ...request }) => ({
            ...request,
            Keys: (Keys ?? []).map((key) => unmarshall(key)),
          })),
        });
        return {
          Responses: mapValues(output.Responses, (items) => items.map(toWire)),
          UnprocessedKeys: mapValues(output.UnprocessedKeys, ({ Keys, ...request }) => ({
            ...request,
            Keys: (Keys ?? []).map(toWire),
          })),
          $metadata: { httpStatusCode: 200 },
        };
      }
      throw new Error(`DynaliteTables: ${command.constructor.name} of the low-level client is not forwarded`);
    });
  }

  /** A put that returns the item it replaced (DynamoDB's `ALL_OLD`), to count its units by: no read before it. */
  private async put(
    input: PutCommand['input'],
  ): Promise<{ output: object; before: Item | undefined; after: Item }> {
    const { Attributes } = await this.send<{ Attributes?: Item }>(PutCommand, {
      ...input,
      ReturnValues: 'ALL_OLD',
    });
    return {
      output: input.ReturnValues === 'ALL_OLD' ? { Attributes } : {},
      before: Attributes,
      after: input.Item!,
    };
  }

  /** Runs one write, recorded with its units; a failed condition is recorded too, then thrown. */
  private async write<O>(
    table: string,
    kind: WriteRecord['kind'],
    key: Item,
    run: () => Promise<{ output: O; before: Item | undefined; after: Item | undefined }>,
  ): Promise<O> {
    this.attempts += 1;
    const attempt = this.attempts;
    const description = `${kind} ${table} ${String(key.PK)} ${String(key.SK)}`;
    const record: WriteRecord = {
      table,
      kind,
      key: `${String(key.PK)} ${String(key.SK)}`,
      units: 1,
      conditionFailed: false,
    };
    const failure = await this.failWrite?.(attempt, description);
    if (failure) throw failure;
    this.writes.push(record);
    try {
      const { output, before, after } = await run();
      record.units = unitsOf(before, after);
      return output;
    } catch (error) {
      if (
        error instanceof ConditionalCheckFailedException ||
        (error as Error).name === 'ConditionalCheckFailedException'
      )
        record.conditionFailed = true;
      else this.writes.splice(this.writes.indexOf(record), 1);
      throw error;
    }
  }

  /** Every item of a table, keyed `PK SK`. */
  async items(table: string): Promise<Map<string, Item>> {
    const items = new Map<string, Item>();
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.send<{ Items?: Item[]; LastEvaluatedKey?: Record<string, unknown> }>(
        ScanCommand,
        { TableName: table, ExclusiveStartKey: start, ConsistentRead: true },
      );
      for (const item of page.Items ?? []) items.set(`${String(item.PK)} ${String(item.SK)}`, item);
      start = page.LastEvaluatedKey;
    } while (start);
    return new Map([...items].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  async get(table: string, key: { PK: string; SK: string }): Promise<Item | undefined> {
    const result = await this.send<{ Item?: Item }>(GetCommand, {
      TableName: table,
      Key: key,
      ConsistentRead: true,
    });
    return result.Item;
  }

  /** Puts an item directly, as another writer would: not recorded, no failure injected. */
  async seed(table: string, item: Item): Promise<void> {
    await this.send(PutCommand, { TableName: table, Item: item });
  }

  /** Puts items directly, 25 to a BatchWriteItem, as `seed` does one (a snapshot taken with `items()` back). */
  async seedAll(table: string, items: Iterable<Item>): Promise<void> {
    const all = [...items];
    for (let i = 0; i < all.length; i += 25)
      await this.send(BatchWriteCommand, {
        RequestItems: { [table]: all.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) },
      });
  }

  /** Write attempts so far, failed and injected failures included: what `failWrite` numbers them by. */
  get attempted(): number {
    return this.attempts;
  }

  /** Write units of the successful and failed writes recorded since the last `resetWrites()`. */
  unitsWritten(): number {
    return this.writes.reduce((sum, write) => sum + write.units, 0);
  }

  resetWrites(): void {
    this.writes.length = 0;
  }
}
