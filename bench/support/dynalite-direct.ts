import { createRequire } from 'node:module';

/**
 * Seeding a bench's data straight into the local dynalite's store, in this process: for each new
 * item, what dynalite's PutItem writes (the item and an entry in each index whose keys it has, laid
 * out by dynalite's own `db` functions), batched, without the SDK's marshalling, signing and retries,
 * the HTTP round trip, the JSON both ways and a lock and read per item. Seeding 5,000 persons and
 * 10,000 events took 12.2 s of CPU through a DynamoDB client, 2.6 s here; 100,000 and 200,000 had
 * taken over 7 minutes. The store holds the same items and index entries either way
 * (test/unit/bench/dynalite-direct.test.ts); what a bench then measures goes through the emulator
 * over HTTP.
 *
 * dynalite keeps its store private to its HTTP server, so the store is caught as dynalite creates
 * it (its `db.create`, reached the way dynalite itself requires it), around the start of the server.
 */

/** dynalite's store: opaque outside this module. */
export type DynaliteStore = object & { readonly __dynaliteStore?: never };

type Callback = (error: Error | null) => void;

type Item = Record<string, unknown>;

interface Table {
  readonly TableName: string;
  readonly GlobalSecondaryIndexes?: readonly unknown[];
}

interface SubDatabase {
  batch(operations: { type: 'put'; key: string; value: Item }[], callback: Callback): void;
}

interface Store {
  getTable(name: string, checkStatus: boolean, callback: (error: Error | null, table: Table) => void): void;
  getItemDb(table: string): SubDatabase;
  getIndexDb(kind: 'Global', table: string, index: string): SubDatabase;
}

/** The functions of dynalite's `db` module its PutItem uses to lay out an item and its index entries. */
interface DynaliteDb {
  create: (options: unknown) => DynaliteStore;
  validateItem(item: Item, table: Table): Error | undefined;
  createKey(item: Item, table: Table): string;
  getIndexActions(
    indexes: readonly unknown[],
    existing: undefined,
    item: Item,
    table: Table,
  ): { puts: { index: string; key: string; item: Item }[] };
}

const dynaliteDb = (): DynaliteDb => createRequire(require.resolve('dynalite'))('./db') as DynaliteDb;

/**
 * A value as a DynamoDB attribute in the JSON protocol, as the DocumentClient marshals this code's
 * items: strings, numbers, booleans, null, binary (in base64), lists and maps; anything else
 * (undefined inside a list or map included) is refused, as the DocumentClient refuses it.
 */
function attributeOf(value: unknown): unknown {
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'number' || typeof value === 'bigint') return { N: String(value) };
  if (typeof value === 'boolean') return { BOOL: value };
  if (value === null) return { NULL: true };
  if (value instanceof Uint8Array) return { B: Buffer.from(value).toString('base64') };
  if (Array.isArray(value)) return { L: value.map(attributeOf) };
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return { M: mapValues(Object.entries(value)) };
  throw new Error(`no DynamoDB attribute for ${Object.prototype.toString.call(value)}`);
}

const mapValues = (entries: [string, unknown][]): Item =>
  Object.fromEntries(entries.map(([name, value]) => [name, attributeOf(value)]));

/** An item's attributes; an undefined one is left out, as the DocumentClient leaves it out. */
const itemOf = (item: Item): Item =>
  mapValues(Object.entries(item).filter(([, value]) => value !== undefined));

/** Runs `start` and returns, with its result, the store of the one dynalite it started. */
export async function catchDynaliteStore<T>(
  start: () => Promise<T>,
): Promise<{ started: T; store: DynaliteStore }> {
  const db = dynaliteDb();
  const create = db.create;
  const created: DynaliteStore[] = [];
  db.create = (options) => {
    const store = create(options);
    created.push(store);
    return store;
  };
  try {
    const started = await start();
    if (created.length !== 1) throw new Error(`expected one dynalite store, ${created.length} were created`);
    return { started, store: created[0]! };
  } finally {
    db.create = create;
  }
}

const batch = (database: SubDatabase, operations: { type: 'put'; key: string; value: Item }[]) =>
  new Promise<void>((resolve, reject) =>
    database.batch(operations, (error) => (error ? reject(error) : resolve())),
  );

/**
 * Puts new `items` (as a DocumentClient marshals them) into `table`: what dynalite's
 * PutItem writes for an item that was not there (the item, then an entry in each index whose keys
 * it has), laid out by dynalite's own functions, in one LevelDB batch per index and 1,000 items.
 */
export async function putDirectly(
  dynaliteStore: DynaliteStore,
  tableName: string,
  items: readonly Item[],
): Promise<void> {
  const db = dynaliteDb();
  const store = dynaliteStore as Store;
  const table = await new Promise<Table>((resolve, reject) =>
    store.getTable(tableName, false, (error, found) => (error ? reject(error) : resolve(found))),
  );
  for (let start = 0; start < items.length; start += 1_000) {
    const rows: { type: 'put'; key: string; value: Item }[] = [];
    const indexRows = new Map<string, { type: 'put'; key: string; value: Item }[]>();
    for (const plain of items.slice(start, start + 1_000)) {
      const item = itemOf(plain);
      const invalid = db.validateItem(item, table);
      if (invalid) throw invalid;
      rows.push({ type: 'put', key: db.createKey(item, table), value: item });
      for (const entry of db.getIndexActions(table.GlobalSecondaryIndexes ?? [], undefined, item, table)
        .puts) {
        const list = indexRows.get(entry.index) ?? [];
        list.push({ type: 'put', key: entry.key, value: entry.item });
        indexRows.set(entry.index, list);
      }
    }
    // The index entries first, as PutItem writes them before the item.
    for (const [index, list] of indexRows) await batch(store.getIndexDb('Global', tableName, index), list);
    await batch(store.getItemDb(tableName), rows);
  }
}
