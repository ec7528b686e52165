import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { AwsClientStub } from 'aws-sdk-client-mock';
import { mockClient } from 'aws-sdk-client-mock';

/**
 * An in-memory DynamoDB behind `mockClient(DynamoDBDocumentClient)`: it evaluates the condition, key
 * and update expressions the code sends (the subset Flock uses), so tests can replay batches, inject
 * failures and compare end states. Commands stay inspectable through `mock` as usual.
 */

type Item = Record<string, unknown>;
type Names = Record<string, string> | undefined;
type Values = Record<string, unknown> | undefined;

// ---------------------------------------------------------------------------------------------
// Expressions

type Token = { kind: 'word' | 'name' | 'value' | 'op' | 'punct'; text: string };

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const pattern =
    /\s*(?:(#[A-Za-z0-9_]+)|(:[A-Za-z0-9_]+)|([A-Za-z_][A-Za-z0-9_]*)|(<>|<=|>=|=|<|>|\+)|([(),]))/y;
  let index = 0;
  while (index < expression.length) {
    if (/^\s*$/.test(expression.slice(index))) break;
    pattern.lastIndex = index;
    const match = pattern.exec(expression);
    if (!match) throw new Error(`fake-table cannot parse: ${expression.slice(index)}`);
    index = pattern.lastIndex;
    if (match[1]) tokens.push({ kind: 'name', text: match[1] });
    else if (match[2]) tokens.push({ kind: 'value', text: match[2] });
    else if (match[3]) tokens.push({ kind: 'word', text: match[3] });
    else if (match[4]) tokens.push({ kind: 'op', text: match[4] });
    else tokens.push({ kind: 'punct', text: match[5]! });
  }
  return tokens;
}

class Parser {
  private position = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly names: Names,
    private readonly values: Values,
  ) {}

  peek(): Token | undefined {
    return this.tokens[this.position];
  }

  next(): Token {
    const token = this.tokens[this.position++];
    if (!token) throw new Error('fake-table: unexpected end of expression');
    return token;
  }

  expect(text: string): void {
    const token = this.next();
    if (token.text !== text) throw new Error(`fake-table: expected ${text}, got ${token.text}`);
  }

  atEnd(): boolean {
    return this.position >= this.tokens.length;
  }

  isWord(text: string): boolean {
    const token = this.peek();
    return token?.kind === 'word' && token.text.toUpperCase() === text;
  }

  attributeName(token: Token): string {
    if (token.kind === 'name') {
      const name = this.names?.[token.text];
      if (name === undefined) throw new Error(`fake-table: undefined name ${token.text}`);
      return name;
    }
    if (token.kind === 'word') return token.text;
    throw new Error(`fake-table: expected an attribute, got ${token.text}`);
  }

  /** An operand: a path (read from the item) or a value placeholder. */
  operand(item: Item): unknown {
    const token = this.next();
    if (token.kind === 'value') {
      if (!this.values || !(token.text in this.values))
        throw new Error(`fake-table: undefined value ${token.text}`);
      return this.values[token.text];
    }
    if (token.kind === 'word' && token.text === 'if_not_exists' && this.peek()?.text === '(') {
      this.expect('(');
      const path = this.attributeName(this.next());
      this.expect(',');
      const fallback = this.operand(item);
      this.expect(')');
      return item[path] !== undefined ? item[path] : fallback;
    }
    return item[this.attributeName(token)];
  }

  condition(item: Item): boolean {
    let result = this.conjunction(item);
    while (this.isWord('OR')) {
      this.next();
      const right = this.conjunction(item);
      result = result || right;
    }
    return result;
  }

  private conjunction(item: Item): boolean {
    let result = this.negation(item);
    while (this.isWord('AND')) {
      this.next();
      const right = this.negation(item);
      result = result && right;
    }
    return result;
  }

  private negation(item: Item): boolean {
    if (this.isWord('NOT')) {
      this.next();
      return !this.negation(item);
    }
    return this.primary(item);
  }

  private primary(item: Item): boolean {
    const token = this.peek()!;
    if (token.text === '(') {
      this.next();
      const result = this.condition(item);
      this.expect(')');
      return result;
    }
    if (
      token.kind === 'word' &&
      ['attribute_exists', 'attribute_not_exists', 'begins_with'].includes(token.text)
    ) {
      this.next();
      this.expect('(');
      const path = this.attributeName(this.next());
      let result: boolean;
      if (token.text === 'begins_with') {
        this.expect(',');
        const prefix = this.operand(item);
        const value = item[path];
        result = typeof value === 'string' && typeof prefix === 'string' && value.startsWith(prefix);
      } else {
        result = (item[path] !== undefined) === (token.text === 'attribute_exists');
      }
      this.expect(')');
      return result;
    }
    const left = this.operand(item);
    if (this.isWord('BETWEEN')) {
      this.next();
      const low = this.operand(item);
      if (!this.isWord('AND')) throw new Error('fake-table: BETWEEN without AND');
      this.next();
      const high = this.operand(item);
      return compare(left, low) !== undefined && compare(left, low)! >= 0 && compare(left, high)! <= 0;
    }
    const op = this.next();
    const right = this.operand(item);
    const order = compare(left, right);
    if (order === undefined) return op.text === '<>' && left !== undefined;
    switch (op.text) {
      case '=':
        return order === 0;
      case '<>':
        return order !== 0;
      case '<':
        return order < 0;
      case '<=':
        return order <= 0;
      case '>':
        return order > 0;
      case '>=':
        return order >= 0;
      default:
        throw new Error(`fake-table: unknown operator ${op.text}`);
    }
  }
}

function compare(a: unknown, b: unknown): number | undefined {
  if (a === undefined || b === undefined) return undefined;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : undefined;
  return JSON.stringify(a) === JSON.stringify(b) ? 0 : undefined;
}

function evaluateCondition(
  expression: string | undefined,
  item: Item,
  names: Names,
  values: Values,
): boolean {
  if (!expression) return true;
  const parser = new Parser(tokenize(expression), names, values);
  const result = parser.condition(item);
  if (!parser.atEnd()) throw new Error(`fake-table: trailing tokens in ${expression}`);
  return result;
}

function applyUpdate(expression: string, before: Item, names: Names, values: Values): Item {
  const item = structuredClone(before);
  const parser = new Parser(tokenize(expression), names, values);
  while (!parser.atEnd()) {
    const clause = parser.next().text.toUpperCase();
    const isClauseStart = (): boolean =>
      parser.atEnd() || ['SET', 'REMOVE', 'ADD', 'DELETE'].some((word) => parser.isWord(word));
    do {
      if (parser.peek()?.text === ',') parser.next();
      const path = parser.attributeName(parser.next());
      if (clause === 'SET') {
        parser.expect('=');
        let value = parser.operand(before);
        if (parser.peek()?.text === '+') {
          parser.next();
          value = (value as number) + (parser.operand(before) as number);
        }
        item[path] = structuredClone(value);
      } else if (clause === 'REMOVE') {
        delete item[path];
      } else if (clause === 'ADD') {
        const amount = parser.operand(before) as number;
        item[path] = ((before[path] as number | undefined) ?? 0) + amount;
      } else {
        throw new Error(`fake-table: unsupported clause ${clause}`);
      }
    } while (!isClauseStart());
  }
  return item;
}

// ---------------------------------------------------------------------------------------------
// Sizes (write units)

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

/** DynamoDB's item size: attribute names plus values. */
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

// ---------------------------------------------------------------------------------------------
// The table

export interface WriteRecord {
  readonly table: string;
  readonly kind: 'put' | 'update' | 'batch-put';
  /** `PK SK` */
  readonly key: string;
  readonly units: number;
  readonly conditionFailed: boolean;
}

export class FakeTables {
  readonly mock: AwsClientStub<DynamoDBDocumentClient>;
  private readonly tables = new Map<string, Map<string, Item>>();
  readonly writes: WriteRecord[] = [];
  private attempts = 0;
  /** Decides, for each write attempt (counted from 1), whether it throws instead. */
  failWrite: ((attempt: number, description: string) => Error | undefined) | undefined;
  /** Items of a BatchWriteItem call this says yes to come back as `UnprocessedItems` (throttled). */
  leaveUnprocessed: ((description: string) => boolean) | undefined;

  constructor() {
    this.mock = mockClient(DynamoDBDocumentClient);
    this.install(this.mock);
  }

  /** Gives the client back its real `send`. */
  restore(): void {
    this.mock.restore();
  }

  private install(mock: AwsClientStub<DynamoDBDocumentClient>): void {
    mock
      .on(GetCommand)
      .callsFake((input: GetCommand['input']) => ({ Item: this.read(input.TableName!, input.Key!) }));
    mock.on(BatchGetCommand).callsFake((input: BatchGetCommand['input']) => {
      const Responses: Record<string, Item[]> = {};
      for (const [table, request] of Object.entries(input.RequestItems ?? {})) {
        Responses[table] = (request.Keys ?? [])
          .map((key) => this.read(table, key))
          .filter((item): item is Item => item !== undefined);
      }
      return { Responses, UnprocessedKeys: {} };
    });
    mock.on(PutCommand).callsFake((input: PutCommand['input']) => {
      const item = input.Item!;
      this.write(input.TableName!, 'put', item, (before) => {
        if (
          !evaluateCondition(
            input.ConditionExpression,
            before ?? {},
            input.ExpressionAttributeNames,
            input.ExpressionAttributeValues,
          )
        ) {
          return undefined;
        }
        return structuredClone(item);
      });
      return {};
    });
    mock.on(UpdateCommand).callsFake((input: UpdateCommand['input']) => {
      let result: Item | undefined;
      this.write(input.TableName!, 'update', input.Key!, (before) => {
        const current = before ?? {};
        if (
          !evaluateCondition(
            input.ConditionExpression,
            current,
            input.ExpressionAttributeNames,
            input.ExpressionAttributeValues,
          )
        ) {
          return undefined;
        }
        result = applyUpdate(
          input.UpdateExpression!,
          { ...current, ...input.Key },
          input.ExpressionAttributeNames,
          input.ExpressionAttributeValues,
        );
        return result;
      });
      return input.ReturnValues === 'ALL_NEW' || input.ReturnValues === 'UPDATED_NEW'
        ? { Attributes: result }
        : {};
    });
    mock.on(BatchWriteCommand).callsFake((input: BatchWriteCommand['input']) => {
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
          this.write(table, 'batch-put', item, () => structuredClone(item));
        }
      }
      return { UnprocessedItems };
    });
    mock.on(QueryCommand).callsFake((input: QueryCommand['input']) => this.query(input));
  }

  private keyOf(key: Item): string {
    return `${String(key.PK)}\u0000${String(key.SK)}`;
  }

  private tableOf(name: string): Map<string, Item> {
    let table = this.tables.get(name);
    if (!table) {
      table = new Map();
      this.tables.set(name, table);
    }
    return table;
  }

  private read(table: string, key: Item): Item | undefined {
    const item = this.tableOf(table).get(this.keyOf(key));
    return item ? structuredClone(item) : undefined;
  }

  /** Runs one write: `change` returns the new item, or undefined when its condition fails. */
  private write(
    table: string,
    kind: WriteRecord['kind'],
    key: Item,
    change: (before: Item | undefined) => Item | undefined,
  ): void {
    this.attempts += 1;
    const description = `${kind} ${table} ${String(key.PK)} ${String(key.SK)}`;
    const failure = this.failWrite?.(this.attempts, description);
    if (failure) throw failure;
    const items = this.tableOf(table);
    const before = items.get(this.keyOf(key));
    const after = change(before ? structuredClone(before) : undefined);
    if (!after) {
      this.writes.push({
        table,
        kind,
        key: `${String(key.PK)} ${String(key.SK)}`,
        units: 1,
        conditionFailed: true,
      });
      throw new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
    }
    this.writes.push({
      table,
      kind,
      key: `${String(key.PK)} ${String(key.SK)}`,
      units: unitsOf(before, after),
      conditionFailed: false,
    });
    items.set(this.keyOf(key), after);
  }

  private query(input: QueryCommand['input']): { Items: Item[] } {
    const [pkName, skName] = input.IndexName ? ['GSI1PK', 'GSI1SK'] : ['PK', 'SK'];
    const matches = [...this.tableOf(input.TableName!).values()]
      .filter((item) => item[pkName] !== undefined)
      .filter((item) =>
        evaluateCondition(
          input.KeyConditionExpression,
          item,
          input.ExpressionAttributeNames,
          input.ExpressionAttributeValues,
        ),
      )
      .sort((a, b) => compare(a[skName], b[skName]) ?? 0);
    if (input.ScanIndexForward === false) matches.reverse();
    return { Items: structuredClone(input.Limit ? matches.slice(0, input.Limit) : matches) };
  }

  /** Every item of a table, keyed `PK SK`. */
  items(table: string): Map<string, Item> {
    return new Map(
      [...this.tableOf(table)].map(([key, item]) => [key.replace('\u0000', ' '), structuredClone(item)]),
    );
  }

  get(table: string, key: { PK: string; SK: string }): Item | undefined {
    return this.read(table, key);
  }

  seed(table: string, item: Item): void {
    this.tableOf(table).set(this.keyOf(item), structuredClone(item));
  }

  /** Write units of the successful and failed writes recorded since the last `resetWrites()`. */
  unitsWritten(): number {
    return this.writes.reduce((sum, write) => sum + write.units, 0);
  }

  resetWrites(): void {
    this.writes.length = 0;
  }
}
