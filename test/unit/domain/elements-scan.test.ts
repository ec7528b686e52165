import {
  attributePairs,
  chainToElements,
  splitChainTokens,
  splitTagAndAttributes,
} from '../../../functions/shared/domain/elements';

/*
 * PostHog's own patterns, kept here only as the oracle: the scanners must return exactly what they
 * match. Run on short inputs, where their backtracking costs nothing.
 */
const splitChain = /(?:[^\s;"]|"(?:\\.|[^"])*")+/g;
const splitClassAttributes = /(.*?)($|:([a-zA-Z\-_0-9]*=.*))/;
const parseAttributes = /((.*?)="(.*?[^\\])")/g;

/** A small deterministic generator (mulberry32), so a failure names a reproducible input. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const alphabet = ['a', 'b', '"', '\\', ';', ' ', '\n', ':', '=', '.', '-', '\u2028', '\t'];

function randomTexts(count: number, maxLength: number, seed: number): string[] {
  const next = random(seed);
  return Array.from({ length: count }, () => {
    const length = Math.floor(next() * (maxLength + 1));
    let text = '';
    for (let i = 0; i < length; i += 1) text += alphabet[Math.floor(next() * alphabet.length)];
    return text;
  });
}

describe('elements_chain scanners equal PostHog’s patterns', () => {
  it('split_chain', () => {
    for (const text of randomTexts(20_000, 14, 1)) {
      expect([text, splitChainTokens(text)]).toEqual([text, text.match(splitChain) ?? []]);
    }
  });

  it('split_class_attributes', () => {
    for (const text of randomTexts(20_000, 14, 2)) {
      const [, tag = '', , attributes = ''] = splitClassAttributes.exec(text) ?? [];
      expect([text, splitTagAndAttributes(text)]).toEqual([text, [tag, attributes]]);
    }
  });

  it('parse_attributes', () => {
    for (const text of randomTexts(20_000, 14, 3)) {
      const expected = [...text.matchAll(parseAttributes)].map((m) => [m[2], m[3]]);
      expect([text, attributePairs(text)]).toEqual([text, expected]);
    }
  });
});

describe('elements_chain scanners take linear time', () => {
  // Each input took the backtracking patterns seconds to years (`a"` + 38 backslashes: 0.66 s,
  // doubling every two characters); a linear scan reads a megabyte in milliseconds. The bound here
  // is on work, not time: the scan must finish at all for a size no backtracking pattern survives.
  const size = 1_000_000;
  it.each([
    ['a" and backslashes', `a"${'\\'.repeat(size)}`],
    ['escaped quotes, unterminated', `"${'\\"'.repeat(size / 2)}`],
    ['a line break and equals signs', `\n${'='.repeat(size)}=\n`],
    ['attribute openings', `:${'a="'.repeat(size / 3)}`],
    ['colons', `${':a'.repeat(size / 2)}`],
    ['lines without openings', `:${'a\u2028'.repeat(size / 2)}a="b"`],
    ['lines without colons', `"${'a\n'.repeat(size / 2)}:a="`],
    ['unclosed values', `:${'a="\\"\n'.repeat(size / 5)}`],
  ])('%s', (_name, chain) => {
    expect(Array.isArray(chainToElements(chain))).toBe(true);
  });
});
