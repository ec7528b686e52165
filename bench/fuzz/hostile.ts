/**
 * Hostile values, as raw JSON text so that what `JSON.stringify` cannot produce (NaN, duplicate keys,
 * 20k levels of nesting, numbers beyond a double) can be spliced into any field of any body.
 *
 * 20k levels, not 10k: the local functions run in worker threads, whose larger stack lets
 * `JSON.stringify` reach about 16k levels, while Lambda's main thread stops near 4k. Only nesting
 * deeper than both shows locally what would fail on AWS.
 */

export const oneMegabyte = 'x'.repeat(1024 * 1024);
export const longText = 'a'.repeat(3000);

/** `depth` levels of nesting, as `[[[…]]]` or `{"a":{"a":…}}`. */
export const nestedArrays = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
export const nestedObjects = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

export interface HostileValue {
  readonly name: string;
  readonly json: string;
}

const value = (name: string, json: string): HostileValue => ({ name, json });
const text = (name: string, s: string): HostileValue => value(name, JSON.stringify(s));

/** Every field of every body meets each of these. */
export const hostileValues: readonly HostileValue[] = [
  value('null', 'null'),
  value('true', 'true'),
  value('false', 'false'),
  value('zero', '0'),
  value('negative', '-1'),
  value('float', '1.5'),
  value('huge number', '1e308'),
  value('beyond double', '1e309'),
  value('2^53+1', '9007199254740993'),
  value('NaN', 'NaN'),
  value('Infinity', 'Infinity'),
  value('-Infinity', '-Infinity'),
  text('empty string', ''),
  text('blank string', '   '),
  text('numeric string', '42'),
  text('unicode', 'ñ😀\u200b\u202e'),
  text('NUL', 'a\u0000b'),
  text('lone surrogate', '\ud800'),
  text('noncharacter', 'a\uffffb\ufffe'),
  text('path traversal', '../../etc/passwd'),
  text('html', '<script>alert(1)</script>'),
  // Takes a backtracking engine 2^40 steps against the fixtures' `^(a+)+$` flag conditions.
  text('regex backtracking trap', `${'a'.repeat(40)}!`),
  text('3 KB string', longText),
  text('1 MB string', oneMegabyte),
  value('empty array', '[]'),
  value('array of null', '[null]'),
  value('array of mixed', '[1,"a",{},[],null]'),
  value('empty object', '{}'),
  value('object', '{"a":1,"b":"c"}'),
  value('__proto__', '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}'),
  value('duplicate keys', '{"a":1,"a":"b"}'),
  value('20k nested arrays', nestedArrays(20_000)),
  value('20k nested objects', nestedObjects(20_000)),
  // Shaped for backtracking patterns over strings (lenient JSON's NaN scan, `$elements_chain`'s
  // split, uuid and semver cleanup): each held a backtracking regex for seconds or more.
  text('a" and backslashes', `a"${'\\'.repeat(20_000)}`),
  text('escaped quotes', '\\"'.repeat(10_000)),
  text('nested quotes', `${'"\'\\"'.repeat(5_000)}`),
  text('NaN inside strings', `NaN "NaN" ${'\\"NaN'.repeat(5_000)}`),
];

/** Hostile values, smaller set, for nested fields where the full set would repeat itself. */
export const shortHostileValues: readonly HostileValue[] = hostileValues.filter((v) =>
  [
    'null',
    'true',
    'negative',
    'huge number',
    'beyond double',
    'NaN',
    'empty string',
    'unicode',
    'regex backtracking trap',
    'a" and backslashes',
    'NaN inside strings',
    '3 KB string',
    'empty array',
    'object',
    '20k nested objects',
  ].includes(v.name),
);

const sentinel = '\u0000FUZZ\u0000';
const sentinelJson = JSON.stringify(sentinel);

/** Sets `path` (keys and indexes) in a deep copy of `base` to the sentinel, creating what is missing. */
function withSentinel(base: unknown, path: readonly (string | number)[]): unknown {
  if (path.length === 0) return sentinel;
  const [head, ...rest] = path;
  if (typeof head === 'number') {
    const list = Array.isArray(base) ? [...(base as unknown[])] : [];
    list[head] = withSentinel(list[head], rest);
    return list;
  }
  const object: Record<string, unknown> =
    typeof base === 'object' && base !== null && !Array.isArray(base)
      ? { ...(base as Record<string, unknown>) }
      : {};
  object[head!] = withSentinel(object[head!], rest);
  return object;
}

/** The JSON text of `base` with the field at `path` replaced by raw JSON. */
export function jsonWith(base: unknown, path: readonly (string | number)[], rawJson: string): string {
  return JSON.stringify(withSentinel(base, path)).replace(sentinelJson, () => rawJson);
}

/** Malformed or surprising JSON documents, as whole bodies. */
export const malformedBodies: readonly { readonly name: string; readonly body: string | Uint8Array }[] = [
  { name: 'empty', body: '' },
  { name: 'whitespace', body: ' \n\t' },
  { name: 'open brace', body: '{' },
  { name: 'close brace', body: '}' },
  { name: 'missing value', body: '{"a":}' },
  { name: 'trailing comma', body: '{"a":1,}' },
  { name: 'single quotes', body: "{'a':1}" },
  { name: 'comment', body: '{/* c */"a":1}' },
  { name: 'trailing garbage', body: '{"a":1} x' },
  { name: 'null', body: 'null' },
  { name: 'string', body: '"text"' },
  { name: 'number', body: '123' },
  { name: 'true', body: 'true' },
  { name: 'empty array', body: '[]' },
  { name: 'array of objects', body: '[{"a":1},{"b":2}]' },
  { name: 'NaN', body: 'NaN' },
  { name: 'NaN field', body: '{"a":NaN,"b":Infinity,"c":-Infinity}' },
  { name: 'beyond double', body: '{"a":1e309}' },
  { name: 'duplicate keys', body: '{"name":"a","name":{"x":1}}' },
  { name: 'BOM', body: '\ufeff{"name":"bom"}' },
  { name: 'NUL byte', body: '{"a":"\u0000"}\u0000' },
  {
    name: 'invalid UTF-8',
    body: Uint8Array.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
  },
  { name: 'UTF-16LE', body: Uint8Array.from(Buffer.from('{"name":"utf16"}', 'utf16le')) },
  { name: '20k nested arrays', body: nestedArrays(20_000) },
  { name: '20k nested objects', body: nestedObjects(20_000) },
  { name: '100k unclosed', body: '['.repeat(100_000) },
  { name: '1 MB string', body: JSON.stringify({ name: oneMegabyte }) },
  // Lenient JSON reads NaN outside strings only after JSON.parse fails: an unterminated string of
  // escaped quotes made its scan quadratic (80 KB: 2.2 s before the token was even checked).
  { name: 'unterminated escaped quotes, NaN', body: `{"a":NaN,"b":"${'\\"'.repeat(100_000)}` },
  { name: 'NaN among 100k quoted quotes', body: `[${'"\\"",NaN,'.repeat(20_000)}-Infinity]` },
  { name: 'run of backslashes, NaN', body: `{"a":NaN,"b":"${'\\'.repeat(200_001)}` },
  { name: 'proto pollution', body: '{"__proto__":{"isAdmin":true},"name":"p"}' },
];

/** Content types a JSON body is sent under. */
export const contentTypes: readonly (string | undefined)[] = [
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'application/vnd.api+json',
  'application/jsonx',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  '*/*',
  ';;;',
];
