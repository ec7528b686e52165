import type { AttributeValue, WriteRequest } from '@aws-sdk/client-dynamodb';
import type { BatchWriteCommandInput, DynamoDBDocumentClientResolvedConfig } from '@aws-sdk/lib-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';

type AttributeMap = Record<string, AttributeValue>;

/** A step that hands the next one its arguments with another input. */
type Marshalling = <Args extends { readonly input: object }, Result>(
  next: (args: Args) => Result,
) => (args: Args) => Result;

/** A number as util-dynamodb writes it, or undefined where it refuses one without options (NaN, ±∞, unsafe). */
const numberValue = (value: number): string | undefined =>
  Number.isFinite(value) && Math.abs(value) <= Number.MAX_SAFE_INTEGER ? String(value) : undefined;

/** A Buffer or a Uint8Array itself: util-dynamodb tells binary by its constructor's name. */
const isBinary = (value: unknown): value is Uint8Array =>
  value instanceof Uint8Array && (value.constructor === Uint8Array || Buffer.isBuffer(value));

/**
 * A flat item (its values strings, numbers, booleans or binary: the event items and index pages
 * the consumer writes, several per event) in DynamoDB's attribute-value form, exactly as the
 * document client's marshalling (`@aws-sdk/util-dynamodb` with `removeUndefinedValues`) writes it;
 * undefined when the item is not a plain object or some value is anything else (a map, a list, a
 * set, null, an unsafe number…) or a key named `__proto__`. Only the item's own keys are read.
 */
export function marshallFlatItem(item: Readonly<Record<string, unknown>>): AttributeMap | undefined {
  const prototype: unknown = Object.getPrototypeOf(item);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const marshalled: AttributeMap = {};
  for (const key of Object.keys(item)) {
    // Assigned, an own `__proto__` key (JSON can hold one) would set the map's prototype instead.
    if (key === '__proto__') return undefined;
    const value = item[key];
    if (typeof value === 'string') marshalled[key] = { S: value };
    else if (typeof value === 'number') {
      const text = numberValue(value);
      if (text === undefined) return undefined;
      marshalled[key] = { N: text };
    } else if (isBinary(value)) marshalled[key] = { B: value };
    else if (typeof value === 'boolean') marshalled[key] = { BOOL: value };
    else if (value !== undefined) return undefined;
  }
  return marshalled;
}

/** Every put and delete of the request marshalled by `marshallFlatItem`, or undefined if one is not flat. */
function flatRequestItems(
  requestItems: BatchWriteCommandInput['RequestItems'],
): Record<string, WriteRequest[]> | undefined {
  const marshalled: Record<string, WriteRequest[]> = {};
  for (const table of Object.keys(requestItems ?? {})) {
    const requests: WriteRequest[] = [];
    for (const { PutRequest, DeleteRequest } of requestItems![table]!) {
      const item = PutRequest && marshallFlatItem(PutRequest.Item ?? {});
      const key = DeleteRequest && marshallFlatItem(DeleteRequest.Key ?? {});
      if ((PutRequest && !item) || (DeleteRequest && !key)) return undefined;
      requests.push({
        ...(item ? { PutRequest: { Item: item } } : {}),
        ...(key ? { DeleteRequest: { Key: key } } : {}),
      });
    }
    marshalled[table] = requests;
  }
  return marshalled;
}

/**
 * The document client's BatchWriteCommand (same input, same output, a BatchWriteCommand to every
 * caller and mock), whose flat items are marshalled by `marshallFlatItem` in place of the document
 * client's generic walk (`marshallInput` over the input's key nodes, then `convertToAttr` per
 * value through a chain of type tests): that walk was about a twentieth of the consumer's CPU on
 * bench/pipeline's events (docs/consumer.md). A request holding any other item is marshalled by the
 * document client as before.
 */
export class FlatBatchWriteCommand extends BatchWriteCommand {
  protected override addMarshallingMiddleware(configuration: DynamoDBDocumentClientResolvedConfig): void {
    super.addMarshallingMiddleware(configuration);
    const requestItems = flatRequestItems(this.input.RequestItems);
    if (!requestItems) return;
    // Takes the place of the document client's own marshalling step (same name, same position).
    const marshalling: Marshalling = (next) => (args) =>
      next({ ...args, input: { ...args.input, RequestItems: requestItems } });
    this.clientCommand.middlewareStack.addRelativeTo(marshalling, {
      name: 'DocumentMarshall',
      relation: 'before',
      toMiddleware: 'serializerMiddleware',
      override: true,
    });
  }
}
