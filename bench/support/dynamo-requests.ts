import { Server } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What the local DynamoDB emulator is asked, per request kind and per kind of item: every request
 * any thread of this process sends to dynalite (whose HTTP server runs on the main thread) is read
 * on the side as it arrives. For the pipeline bench's table of requests and items per event
 * (docs/consumer.md): that work on dynalite's one thread is what the bench's ratio mostly measures.
 *
 * Reading every request body costs the main thread CPU of its own, so a bench only does it when
 * asked (`BENCH_TRACE=1`), and its rates are then not comparable with an untraced run.
 */

interface Tally {
  requests: number;
  /** Items written, keys read, or items a Query/Scan asked for (its Limit, if any). */
  items: number;
  /** Bytes of the items in the request's JSON (DynamoDB JSON, as dynalite parses it). */
  itemBytes: number;
  /** Bytes of the answers (their Content-Length). */
  responseBytes: number;
}

type Attribute = Record<string, unknown>;
type Item = Record<string, Attribute>;

const stringOf = (attribute: Attribute | undefined): string =>
  typeof attribute?.S === 'string' ? attribute.S : '';

/**
 * An item's kind, from its key: the partition key's prefix (`E`, `I`, `DID`, `PERSON`, `PROPVAL`…),
 * and for items of the project's partition the sort key's (`PROJECT/EVDEF`, `PROJECT/PROPDEF`…).
 */
export function kindOfKey(item: Item): string {
  const pk = stringOf(item.PK);
  const prefix = pk.split('#', 1)[0] ?? '';
  if (prefix !== 'PROJECT') return prefix || '?';
  return `PROJECT/${stringOf(item.SK).split('#', 1)[0]}`;
}

interface Body {
  RequestItems?: Record<
    string,
    { Keys?: Item[] } | { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]
  >;
  Item?: Item;
  Key?: Item;
  TransactItems?: Record<string, { Item?: Item; Key?: Item }>[];
  KeyConditionExpression?: string;
  ExpressionAttributeValues?: Item;
  Limit?: number;
}

/** The items of a request: what it writes, or the keys it reads. */
function itemsOf(operation: string, body: Body): Item[] {
  if (operation === 'BatchWriteItem')
    return Object.values(body.RequestItems ?? {}).flatMap((writes) =>
      (writes as { PutRequest?: { Item: Item }; DeleteRequest?: { Key: Item } }[]).map(
        (write) => write.PutRequest?.Item ?? write.DeleteRequest?.Key ?? {},
      ),
    );
  if (operation === 'BatchGetItem')
    return Object.values(body.RequestItems ?? {}).flatMap((read) => (read as { Keys?: Item[] }).Keys ?? []);
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems')
    return (body.TransactItems ?? []).flatMap((entry) =>
      Object.values(entry).map((part) => part.Item ?? part.Key ?? {}),
    );
  const single = body.Item ?? body.Key;
  if (single) return [single];
  // A Query: the value its key condition's first equality compares with names the kind.
  const placeholder = /=\s*(:\w+)/.exec(body.KeyConditionExpression ?? '')?.[1];
  const pk = placeholder === undefined ? undefined : body.ExpressionAttributeValues?.[placeholder];
  return [{ PK: pk ?? { S: '?' } }];
}

export class DynamoRequests {
  private readonly tallies = new Map<string, Tally>();
  private restore?: () => void;

  /** Starts reading every DynamoDB request the servers of this process receive. */
  start(): void {
    // eslint-disable-next-line @typescript-eslint/unbound-method -- called with its server below
    const emit = Server.prototype.emit;
    const watch = (request: IncomingMessage, response: ServerResponse): void => this.watch(request, response);
    Server.prototype.emit = function (this: Server, name: string | symbol, ...args: unknown[]): boolean {
      if (name === 'request') watch(args[0] as IncomingMessage, args[1] as ServerResponse);
      return Reflect.apply(emit, this, [name, ...args]) as boolean;
    } as typeof emit;
    this.restore = () => {
      Server.prototype.emit = emit;
    };
  }

  stop(): void {
    this.restore?.();
  }

  reset(): void {
    this.tallies.clear();
  }

  private watch(request: IncomingMessage, response: ServerResponse): void {
    const target = request.headers['x-amz-target'];
    if (typeof target !== 'string' || !target.startsWith('DynamoDB_')) {
      this.watchOther(request, response, typeof target === 'string' ? target : undefined);
      return;
    }
    const operation = target.slice(target.indexOf('.') + 1);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
      const items = itemsOf(operation, body);
      response.once('finish', () => {
        const responseBytes = Number(response.getHeader('content-length') ?? 0);
        const byKind = new Map<string, Item[]>();
        for (const item of items) {
          const kind = kindOfKey(item);
          const ofKind = byKind.get(kind) ?? [];
          ofKind.push(item);
          byKind.set(kind, ofKind);
        }
        for (const [kind, ofKind] of byKind) {
          const key = `${operation} ${kind}`;
          const tally = this.tallies.get(key) ?? { requests: 0, items: 0, itemBytes: 0, responseBytes: 0 };
          tally.requests += ofKind.length / items.length;
          tally.items += ofKind.length;
          tally.itemBytes += ofKind.reduce((sum, item) => sum + JSON.stringify(item).length, 0);
          tally.responseBytes += (responseBytes * ofKind.length) / items.length;
          this.tallies.set(key, tally);
        }
      });
    });
  }

  /** Any other request (SQS, the API gateway): counted by its target or its path, with its bytes. */
  private watchOther(request: IncomingMessage, response: ServerResponse, target: string | undefined): void {
    const key = `http ${target ?? `${request.method} ${(request.url ?? '').split('?', 1)[0]}`}`;
    const requestBytes = Number(request.headers['content-length'] ?? 0);
    response.once('finish', () => {
      const tally = this.tallies.get(key) ?? { requests: 0, items: 0, itemBytes: 0, responseBytes: 0 };
      tally.requests++;
      tally.items++;
      tally.itemBytes += requestBytes;
      tally.responseBytes += Number(response.getHeader('content-length') ?? 0);
      this.tallies.set(key, tally);
    });
  }

  /**
   * Per event, by request kind and item kind: requests (a request of several kinds counts in each by
   * its share of items), items, the mean item's bytes and the answer's bytes.
   */
  perEvent(events: number): Record<string, string> {
    const rows = [...this.tallies].sort(([a], [b]) => a.localeCompare(b));
    return Object.fromEntries(
      rows.map(([key, tally]) => [
        key.startsWith('http ') ? key : `dynamodb ${key}`,
        `${(tally.requests / events).toFixed(4)} req, ${(tally.items / events).toFixed(4)} items of ${Math.round(
          tally.itemBytes / tally.items,
        )} B, ${Math.round(tally.responseBytes / tally.requests)} B per answer`,
      ]),
    );
  }
}
