import { unwrapBase64 } from '../../../../functions/shared/public/decompress';
import { parseLenientJson } from '../../../../functions/shared/public/json';
import { isTruthy, pythonTypeName } from '../../../../functions/shared/public/python';

const base64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe('parseLenientJson', () => {
  it('parses standard JSON', () => {
    expect(parseLenientJson('{"a":[1,"NaN"]}')).toEqual({ a: [1, 'NaN'] });
  });

  it('reads NaN, Infinity and -Infinity outside strings as null, and leaves strings alone', () => {
    expect(parseLenientJson('[NaN, Infinity, -Infinity, "NaN \\" Infinity", {"k": NaN}]')).toEqual([
      null,
      null,
      null,
      'NaN " Infinity',
      { k: null },
    ]);
  });

  it('throws the original parser error for text that is not JSON', () => {
    expect(() => parseLenientJson('{"a": NaN, nope}')).toThrow(SyntaxError);
    expect(() => parseLenientJson('nope')).toThrow(/not valid JSON|Unexpected token/);
  });
});

describe('unwrapBase64 (Django tries base64 on every payload)', () => {
  it('unwraps base64 of JSON', () => {
    expect(unwrapBase64(base64('{"event":"e"}'))).toBe('{"event":"e"}');
  });

  it('accepts + turned into spaces, missing padding, line breaks and the URL-safe alphabet', () => {
    const json = '{"t":">>>???"}';
    const standard = base64(json);
    expect(standard).toMatch(/[+/]/);

    expect(unwrapBase64(standard.replaceAll('+', ' ').replace(/=+$/, ''))).toBe(json);
    expect(unwrapBase64(standard.replace(/(.{8})/g, '$1\n'))).toBe(json);
    expect(unwrapBase64(Buffer.from(json).toString('base64url'))).toBe(json);
  });

  it('leaves JSON text alone, even when it is made of base64 characters', () => {
    expect(unwrapBase64('[1]')).toBe('[1]');
    expect(unwrapBase64('  {"a":1}')).toBe('  {"a":1}');
    expect(unwrapBase64('1234')).toBe('1234');
  });

  it('keeps the original when the decoded bytes are not UTF-8 JSON', () => {
    const notJson = base64('hello world');
    expect(unwrapBase64(notJson)).toBe(notJson);
    const notUtf8 = Buffer.from([0x7b, 0xff, 0xfe]).toString('base64');
    expect(unwrapBase64(notUtf8)).toBe(notUtf8);
  });
});

describe('Python semantics', () => {
  it.each([undefined, null, false, 0, '', [], {}])('treats %p as falsy', (value) => {
    expect(isTruthy(value)).toBe(false);
  });

  // bool(float('nan')) is True in Python: the one Python truthiness now says so everywhere.
  it.each([true, 1, -1, Number.NaN, 'x', ' ', [0], { a: undefined }])('treats %p as truthy', (value) => {
    expect(isTruthy(value)).toBe(true);
  });

  it.each([
    ['str', 'x'],
    ['int', 5],
    ['float', 5.5],
    ['bool', true],
    ['NoneType', null],
    ['list', []],
    ['dict', {}],
  ])('names the type %s', (name, value) => {
    expect(pythonTypeName(value)).toBe(name);
  });
});
