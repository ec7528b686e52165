import * as dynamodb from '@aws-sdk/client-dynamodb';
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { marshallOptions } from '@aws-sdk/util-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type dynalite from 'dynalite';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A document client's commands, sent to dynalite's own request listener in this process as the JSON a
 * DynamoDB client puts on the wire, and answered as `DynamoDBDocumentClient` answers them: items
 * marshalled and unmarshalled by `@aws-sdk/util-dynamodb` at the members lib-dynamodb converts, an
 * error as the client's exception class. dynalite parses, validates and evaluates every request as
 * it does over HTTP. The SDK's own pipeline (middleware stack, endpoint resolution, signing, schema
 * serde) was most of the CPU of a test that makes thousands of requests, and proves nothing a test
 * here asserts.
 */

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;
type Json = Record<string, unknown>;

/** The members lib-dynamodb converts, as its commands declare them (`inputKeyNodes`, `outputKeyNodes`). */
type KeyNodes = Record<string, unknown> | unknown[] | null;

/** A lib-dynamodb command class: its instances carry the members it converts (protected there). */
export type DocumentCommandClass = new (input: never) => { readonly input: object };

interface CommandShape {
  readonly operation: string;
  readonly inputKeyNodes: KeyNodes;
  readonly outputKeyNodes: KeyNodes;
}

const operations = new Map<DocumentCommandClass, string>([
  [GetCommand, 'GetItem'],
  [BatchGetCommand, 'BatchGetItem'],
  [QueryCommand, 'Query'],
  [ScanCommand, 'Scan'],
  [PutCommand, 'PutItem'],
  [UpdateCommand, 'UpdateItem'],
  [DeleteCommand, 'DeleteItem'],
  [BatchWriteCommand, 'BatchWriteItem'],
]);
const shapes = new Map<DocumentCommandClass, CommandShape>();

/** A command class's operation and key nodes, read once from an instance (each builds a middleware stack). */
function shapeOf(Command: DocumentCommandClass): CommandShape {
  let shape = shapes.get(Command);
  if (!shape) {
    const operation = operations.get(Command);
    if (!operation) throw new Error(`dynalite-wire: no operation for ${Command.name}`);
    const sample = new Command({} as never) as unknown as Omit<CommandShape, 'operation'>;
    shape = { operation, inputKeyNodes: sample.inputKeyNodes, outputKeyNodes: sample.outputKeyNodes };
    shapes.set(Command, shape);
  }
  return shape;
}

/** lib-dynamodb's walk of a command's key nodes: `{}` every member, `[]` every member of each element, `*` every key. */
function convertAt(value: unknown, nodes: KeyNodes | undefined, convert: (value: never) => unknown): unknown {
  if (value === undefined) return undefined;
  if (nodes === null || nodes === undefined) return convert(value as never);
  const keys = Object.keys(nodes);
  const each = (next: KeyNodes): unknown =>
    Array.isArray(value)
      ? value.map((element) => convertAt(element, next, convert))
      : Object.fromEntries(
          Object.entries(value as Json)
            .map(([name, member]) => [name, convertAt(member, next, convert)])
            .filter(([, member]) => member !== undefined),
        );
  if (keys.length === 0) return each(null);
  if (keys.length === 1 && keys[0] === '*') return each((nodes as Json)['*'] as KeyNodes);
  const converted: Json = Array.isArray(value) ? ([...value] as unknown as Json) : { ...(value as Json) };
  for (const [name, next] of Object.entries(nodes as Json)) {
    const member = convertAt((value as Json)[name], next as KeyNodes, convert);
    if (member !== undefined) converted[name] = member;
  }
  return converted;
}

/** Binary attribute values travel as base64 on the wire; an SDK client hands back a Uint8Array. */
function binaryToWire(this: unknown, key: string, value: unknown): unknown {
  const original = (this as Json)[key];
  return original instanceof Uint8Array ? Buffer.from(original).toString('base64') : value;
}

function binaryFromWire(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(binaryFromWire);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Json);
  if (entries.length === 1) {
    const [type, member] = entries[0]!;
    if (type === 'B' && typeof member === 'string')
      return { B: new Uint8Array(Buffer.from(member, 'base64')) };
    if (type === 'BS' && Array.isArray(member))
      return { BS: member.map((element) => new Uint8Array(Buffer.from(String(element), 'base64'))) };
  }
  return Object.fromEntries(entries.map(([name, member]) => [name, binaryFromWire(member)]));
}

/** The exception a DynamoDB client throws for an error answer: its modelled class where it has one. */
function exceptionOf(status: number, answer: { __type?: string; message?: string; Message?: string }): Error {
  const name = (answer.__type ?? '').replace(/^.*#/, '');
  const options = {
    name,
    $fault: status >= 500 ? 'server' : 'client',
    message: answer.message ?? answer.Message ?? name,
    $metadata: { httpStatusCode: status },
  } as const;
  const modelled = (dynamodb as unknown as Record<string, unknown>)[name];
  if (typeof modelled === 'function' && modelled.prototype instanceof DynamoDBServiceException)
    return new (modelled as new (options: object) => Error)(options);
  return new DynamoDBServiceException(options);
}

export class DynaliteWire {
  constructor(
    private readonly listener: RequestListener,
    private readonly marshalling: marshallOptions,
  ) {}

  static of(server: ReturnType<typeof dynalite>, marshalling: marshallOptions): DynaliteWire {
    return new DynaliteWire(server.listeners('request')[0] as RequestListener, marshalling);
  }

  /** One operation's JSON request and answer; an error answer throws as a DynamoDB client does. */
  async call(operation: string, body: string): Promise<Json> {
    const { status, answer } = await new Promise<{ status: number; answer: string }>((resolve) => {
      const request = Object.assign(new EventEmitter(), {
        method: 'POST',
        url: '/',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `DynamoDB_20120810.${operation}`,
          'x-amz-date': '20240101T000000Z',
          // dynalite checks that a request is signed, not the signature.
          authorization:
            'AWS4-HMAC-SHA256 Credential=local/20240101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
        },
      });
      const response = {
        statusCode: 200,
        setHeader: () => undefined,
        end: (text?: string) => resolve({ status: response.statusCode, answer: text ?? '' }),
      };
      this.listener(request as unknown as IncomingMessage, response as unknown as ServerResponse);
      request.emit('data', Buffer.from(body));
      request.emit('end');
    });
    const parsed = JSON.parse(answer || '{}') as Json;
    if (status !== 200) throw exceptionOf(status, parsed);
    return parsed;
  }

  /** A lib-dynamodb command's input, answered with what `DynamoDBDocumentClient.send` resolves to. */
  async send<O>(Command: DocumentCommandClass, input: object): Promise<O> {
    const { operation, inputKeyNodes, outputKeyNodes } = shapeOf(Command);
    const marshalled = convertAt(input, inputKeyNodes, (value) =>
      marshall(value, { ...this.marshalling, convertTopLevelContainer: true }),
    );
    const output = binaryFromWire(await this.call(operation, JSON.stringify(marshalled, binaryToWire)));
    const document = convertAt(output, outputKeyNodes, (value) =>
      unmarshall(value, { convertWithoutMapWrapper: true }),
    ) as Json;
    return { ...document, $metadata: { httpStatusCode: 200 } } as O;
  }
}
