import { matchProperty } from '../../../../functions/shared/domain/flags/match-property';
import { Needles } from '../../../../functions/shared/domain/flags/needles';

describe('Needles', () => {
  it('finds any substring exactly as searching for each in turn does', () => {
    // Small alphabets make overlaps, shared prefixes and suffixes frequent; an empty needle is in every text.
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const word = (length: number): string =>
      Array.from({ length }, () => 'abć😀'[random(4)])
        .join('')
        .slice(0, length);
    const differing: unknown[] = [];
    for (let run = 0; run < 2_000; run++) {
      const needles = Array.from({ length: 1 + random(20) }, () => word(random(6)));
      const text = word(random(40));
      const expected = needles.some((needle) => text.includes(needle));
      if (new Needles(needles).foundIn(text) !== expected) differing.push({ needles, text, expected });
    }
    expect(differing).toEqual([]);
  });
});

describe('icontains_multi, as a hostile member could write it', () => {
  it('examines the text a bounded number of times, however many substrings the filter lists', () => {
    // Counted, not timed: before, each of the 1,000 substrings scanned the 160 KB property of `a`s
    // (`aaaaaaaab` shifts one character at a time): half a second of CPU for one person.
    const text = 'a'.repeat(160_000);
    const filter = {
      key: 'p',
      value: Array.from({ length: 1_000 }, () => 'aaaaaaaab'),
      operator: 'icontains_multi',
    };
    const includes = jest.spyOn(String.prototype, 'includes');
    const has = jest.spyOn(Map.prototype, 'has');
    const get = jest.spyOn(Map.prototype, 'get');
    let scanned = 0;
    try {
      for (let person = 0; person < 3; person++)
        expect(matchProperty(filter, { p: text }, new Date()).matches).toBe(false);
      scanned =
        includes.mock.contexts.reduce((sum: number, self) => sum + String(self).length, 0) +
        has.mock.calls.length +
        get.mock.calls.length;
    } finally {
      includes.mockRestore();
      has.mockRestore();
      get.mockRestore();
    }
    expect(scanned).toBeLessThan(3 * 10 * text.length);
  });

  it('still matches a substring of the list in any case', () => {
    const value = [...Array.from({ length: 20 }, (_, i) => `absent-${i}`), 'GMAIL'];
    const filter = { key: 'p', value, operator: 'icontains_multi' };
    expect(matchProperty(filter, { p: 'a@gmail.com' }, new Date()).matches).toBe(true);
    expect(matchProperty(filter, { p: 'a@posthog.com' }, new Date()).matches).toBe(false);
    expect(
      matchProperty({ ...filter, operator: 'not_icontains_multi' }, { p: 'a@x' }, new Date()).matches,
    ).toBe(true);
  });
});
