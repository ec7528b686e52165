import { parseLenientJson } from '../../../functions/shared/public/json';
import { capturedEventOf } from '../../../functions/capture/payload';
import { wildcardRange } from '../../../functions/shared/domain/flags/semver';

/*
 * Inputs a client controls, shaped for the patterns these parsers used to run: each one held a
 * backtracking regex for seconds to hours (80 KB of the first took 2.2 s, growing with the square of
 * the size). At a megabyte they only finish because the parsers now read each character a bounded
 * number of times.
 */
const size = 1_000_000;

describe('parsers read request data in linear time', () => {
  it('lenient JSON: an unterminated string full of escaped quotes, with NaN in it', () => {
    const text = `{"a": NaN, "b": "${'\\"'.repeat(size / 2)}`;
    expect(() => parseLenientJson(text)).toThrow(SyntaxError);
  });

  it('lenient JSON: NaN literals among a megabyte of quotes still read as null', () => {
    const pairs = 100_000;
    const text = `[${'"\\"", NaN, '.repeat(pairs)}-Infinity]`;
    const parsed = parseLenientJson(text) as unknown[];
    expect(parsed.length).toBe(2 * pairs + 1);
    expect(parsed.slice(0, 2)).toEqual(['"', null]);
    expect(parsed.at(-1)).toBeNull();
  });

  it('event uuid: a run of braces before a rejecting character', () => {
    expect(() => capturedEventOf({ event: 'e', distinct_id: 'd', uuid: `${'{'.repeat(size)}x` })).toThrow(
      'Event field "uuid" is not a valid UUID!',
    );
  });

  it('event uuid: braces around a uuid are stripped as Python strips them', () => {
    const uuid = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    expect(capturedEventOf({ event: 'e', distinct_id: 'd', uuid: `{{${uuid}}}` })?.uuid).toBe(uuid);
  });

  it('semver wildcard: a run of `.*` before a rejecting character', () => {
    expect(wildcardRange(`1${'.*'.repeat(size / 2)}x`, 'lenient')).toBeNull();
    expect(wildcardRange('1.*.*', 'lenient')).toEqual({ lower: [1, 0, 0], upper: [2, 0, 0] });
  });
});
