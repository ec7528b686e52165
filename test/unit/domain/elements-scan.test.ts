import { isDeepStrictEqual } from 'node:util';
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

/**
 * Each text's scanner result beside the pattern's, for every text where they differ: one assertion
 * over all the cases (an `expect` per case cost most of this file's CPU), which names each failing
 * input as the per-case assertions did.
 */
function mismatches(
  texts: readonly string[],
  scanner: (text: string) => unknown,
  oracle: (text: string) => unknown,
) {
  const differing: { text: string; scanner: unknown; oracle: unknown }[] = [];
  for (const text of texts) {
    const actual = scanner(text);
    const expected = oracle(text);
    if (!isDeepStrictEqual(actual, expected)) differing.push({ text, scanner: actual, oracle: expected });
  }
  return differing;
}

describe('elements_chain scanners equal PostHog’s patterns', () => {
  const count = 20_000;

  it('split_chain', () => {
    const texts = randomTexts(count, 14, 1);
    expect(texts).toHaveLength(count);
    expect(mismatches(texts, splitChainTokens, (text) => text.match(splitChain) ?? [])).toEqual([]);
  });

  it('split_class_attributes', () => {
    const texts = randomTexts(count, 14, 2);
    expect(texts).toHaveLength(count);
    const oracle = (text: string): [string, string] => {
      const [, tag = '', , attributes = ''] = splitClassAttributes.exec(text) ?? [];
      return [tag, attributes];
    };
    expect(mismatches(texts, splitTagAndAttributes, oracle)).toEqual([]);
  });

  it('parse_attributes', () => {
    const texts = randomTexts(count, 14, 3);
    expect(texts).toHaveLength(count);
    const oracle = (text: string) => [...text.matchAll(parseAttributes)].map((m) => [m[2], m[3]]);
    expect(mismatches(texts, attributePairs, oracle)).toEqual([]);
  });

  it('reports a scanner that differs from its pattern on an input', () => {
    // The comparison itself can fail: a scanner that drops the last token is caught, with its input.
    const texts = randomTexts(200, 14, 1);
    const found = mismatches(
      texts,
      (text) => splitChainTokens(text).slice(0, -1),
      (text) => text.match(splitChain) ?? [],
    );
    expect(found.length).toBeGreaterThan(0);
    expect(texts).toContain(found[0]!.text);
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
