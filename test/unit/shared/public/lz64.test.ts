import { compressToBase64, decompressFromBase64 } from 'lz-string';
import { decompressLz64, Lz64TooLargeError } from '../../../../functions/shared/public/lz64';

/** Deterministic pseudo-random text: ASCII, accents, CJK, emoji (surrogate pairs). */
function sampleText(seed: number, length: number): string {
  const alphabet = ['a', 'b', 'c', ' ', '{', '"', ':', '1', 'é', 'ß', '中', '文', '🎉', '✓', '\n', '\u0000'];
  let state = seed;
  let text = '';
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    text += alphabet[state % alphabet.length];
  }
  return text;
}

describe('decompressLz64 (lz-string decompressFromBase64 with an output cap)', () => {
  it.each([0, 1, 2, 5, 17, 100, 1000, 20_000])(
    'round-trips text of %i characters like the library',
    (length) => {
      const text = sampleText(length + 1, length);
      const compressed = compressToBase64(text);

      expect(decompressLz64(compressed, 1_000_000)).toBe(text);
      expect(decompressLz64(compressed, 1_000_000)).toBe(decompressFromBase64(compressed));
    },
  );

  it('round-trips a JSON payload as old posthog-js compressed it', () => {
    const json = JSON.stringify({
      event: '$pageview',
      properties: { distinct_id: 'abc', token: 'phc_x', $lib: 'web' },
    });

    expect(decompressLz64(compressToBase64(json), 10_000)).toBe(json);
  });

  it.each(['', 'foo', 'AAAA', '====', 'not base64 at all!', compressToBase64('hello').slice(0, 3)])(
    'returns what the library returns for invalid input %p',
    (input) => {
      expect(decompressLz64(input, 1_000_000)).toBe(decompressFromBase64(input));
    },
  );

  it('agrees with the library on 500 random base64 strings', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=';
    let state = 7;
    for (let n = 0; n < 500; n++) {
      let input = '';
      for (let i = 0; i < 1 + (n % 40); i++) {
        state = (state * 1103515245 + 12345) % 2 ** 31;
        input += alphabet[state % alphabet.length];
      }
      // A first character worth 48–63 starts the stream with code 3, where the library reads garbage.
      if ((alphabet.indexOf(input[0]!) & 48) === 48) expect(decompressLz64(input, 1_000_000)).toBeNull();
      else expect(decompressLz64(input, 1_000_000)).toBe(decompressFromBase64(input));
    }
  });

  it('stops with Lz64TooLargeError once the output passes the cap', () => {
    const compressed = compressToBase64('a'.repeat(100_000));

    expect(() => decompressLz64(compressed, 99_999)).toThrow(Lz64TooLargeError);
    expect(decompressLz64(compressed, 100_000)).toHaveLength(100_000);
  });
});
