import { marshall } from '@aws-sdk/util-dynamodb';
import { documentMarshalling, marshallItem } from '../../../../functions/shared/db/marshall';

/** What the document client sends for an item: util-dynamodb's `marshall` with the client's options. */
const documentClientForm = (item: Record<string, unknown>): unknown => marshall(item, documentMarshalling);

/** The outcome of marshalling: its value, or the error's message. */
const outcome = (marshal: () => unknown): unknown => {
  try {
    return { value: marshal() };
  } catch (error) {
    return { error: (error as Error).message };
  }
};

class Instance {
  readonly a = 1;
}

/** A deterministic generator of attribute values of every kind the marshaller meets, nested. */
function* values(seed: number, depth: number): Generator<unknown> {
  let state = seed;
  const next = (n: number): number => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
  const leaves = (): unknown[] => [
    '',
    'plain',
    'ünïcødé 💥 "quoted" \\ \u0000',
    0,
    -0,
    1.5,
    -42,
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    true,
    false,
    null,
    undefined,
    new Uint8Array([1, 2, 3]),
    Buffer.from('buffer'),
    new Uint8Array(0),
  ];
  for (let i = 0; i < 400; i++) {
    const pick = next(10);
    if (depth > 0 && pick === 0) yield Array.from({ length: next(4) }, () => first(next(1e6), depth - 1));
    else if (depth > 0 && pick === 1)
      yield Object.fromEntries(
        Array.from({ length: next(4) }, (_, k) => [`k${k}`, first(next(1e6), depth - 1)]),
      );
    else yield leaves()[next(leaves().length)];
  }
}

/** The first value of a generator seeded with `seed`. */
function first(seed: number, depth: number): unknown {
  for (const value of values(seed, depth)) return value;
  return undefined;
}

describe('marshallItem', () => {
  it('marshals every generated item as the document client does', () => {
    const differing: unknown[] = [];
    let seed = 1;
    for (const value of values(7, 3)) {
      const item = { PK: `P#${seed}`, SK: 'E', value, other: first(seed++, 2) };
      const expected = outcome(() => documentClientForm(item));
      if (JSON.stringify(outcome(() => marshallItem(item))) !== JSON.stringify(expected))
        differing.push(item);
    }
    expect(differing).toEqual([]);
  });

  it('keeps byte arrays as they are (B) and leaves undefined members and functions out', () => {
    const bytes = new Uint8Array([9, 8]);
    const item = {
      PK: 'a',
      b: bytes,
      gone: undefined,
      f: () => 1,
      list: [1, undefined, 'x'],
      nested: { u: undefined },
    };

    const marshalled = marshallItem(item);

    expect(marshalled).toEqual(documentClientForm(item));
    expect(marshalled.b).toEqual({ B: bytes });
    expect((marshalled.b as { B: Uint8Array }).B).toBe(bytes);
    expect(Object.keys(marshalled)).toEqual(['PK', 'b', 'list', 'nested']);
  });

  it('hands sets, maps, bigints and null-prototype objects to util-dynamodb, with the same result', () => {
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { x: 1 });
    const item = {
      PK: 'a',
      strings: new Set(['a', 'b']),
      numbers: new Set([1, 2]),
      map: new Map([['m', 1]]),
      big: 12n,
      bare,
      boxed: new String('s'),
    };

    expect(marshallItem(item)).toEqual(documentClientForm(item));
  });

  it('writes own keys only: an own __proto__ key stays an attribute, an inherited member is left out', () => {
    // Prepare: a map from event data with an own __proto__ key, and an item inheriting a member.
    const fromEvent = JSON.parse('{"__proto__":{"x":"1"},"a":"b"}') as Record<string, unknown>;
    const inheriting = Object.create({ inherited: 'no' }) as Record<string, unknown>;
    inheriting.own = 'yes';

    // Act
    const map = marshallItem({ props: fromEvent });
    const item = marshallItem(inheriting);

    // Assert
    const props = map.props?.M as Record<string, unknown>;
    expect(Object.keys(props)).toEqual(['__proto__', 'a']);
    expect(Object.getPrototypeOf(props)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(props, '__proto__')?.value).toEqual({ M: { x: { S: '1' } } });
    expect(item).toEqual({ own: { S: 'yes' } });
  });

  it('refuses what the document client refuses, with its message', () => {
    for (const value of [
      Number.NaN,
      Infinity,
      -Infinity,
      2 ** 60,
      -(2 ** 60),
      new Instance(),
      new Date(0),
      new Set(),
    ])
      expect(outcome(() => marshallItem({ PK: 'a', value }))).toEqual(
        outcome(() => documentClientForm({ PK: 'a', value })),
      );
    expect(outcome(() => marshallItem({ PK: 'a', value: Number.NaN }))).toEqual({
      error: 'Special numeric value NaN is not allowed',
    });
  });

  it('treats an object with its own constructor member as util-dynamodb does', () => {
    const item = {
      PK: 'a',
      tricky: { constructor: 'x', y: 1 },
      named: { constructor: { name: 'Object' }, z: 2 },
    };

    expect(outcome(() => marshallItem(item))).toEqual(outcome(() => documentClientForm(item)));
  });
});
