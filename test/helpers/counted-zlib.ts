import type * as zlib from 'node:zlib';

/**
 * Node's zlib with `createDeflateRaw` and `deflateRawSync` counted, not replaced (every call still
 * reaches zlib), for a test that asserts how many zlib streams a path builds:
 * `jest.mock('node:zlib', () => jest.requireActual<CountedZlib>('…/helpers/counted-zlib').countedZlib())`.
 */
export function countedZlib(): typeof zlib {
  const actual = jest.requireActual<typeof zlib>('node:zlib');
  return {
    ...actual,
    createDeflateRaw: jest.fn(actual.createDeflateRaw),
    deflateRawSync: jest.fn(actual.deflateRawSync),
  };
}

export type CountedZlib = { countedZlib: typeof countedZlib };
