import { matchProperty } from '../../../../functions/shared/domain/flags/match-property';
import type { PropertyBag, PropertyFilter } from '../../../../functions/shared/domain/flags/types';
import { valueTexts } from '../../../../functions/shared/domain/flags/value-texts';

// Cases follow posthog-node's own `match properties` tests (brought to its current rules) and were
// checked against @posthog/core 1.67's matchFeatureFlagProperty wherever it decides.
const now = new Date('2022-05-01T00:00:00Z');
const matches = (filter: PropertyFilter, properties: PropertyBag): boolean =>
  matchProperty(filter, properties, now).matches;

describe('matchProperty with exact (the default operator)', () => {
  it('matches equal text, case-insensitively', () => {
    const filter = { key: 'key', value: 'value' };

    const results = ['value', 'VALUE', 'value2', ''].map((key) => matches(filter, { key }));

    expect(results).toEqual([true, true, false, false]);
  });

  it('matches any item of a list filter', () => {
    const filter = { key: 'key', value: ['value1', 'value2', 'value3'], operator: 'exact' };

    const results = ['value1', 'value2', 'VALUE3', 'value4'].map((key) => matches(filter, { key }));

    expect(results).toEqual([true, true, true, false]);
  });

  it('compares numbers by their text, so 1.5 equals "1.5" and 5 equals "5"', () => {
    const decimal = { key: 'key', value: 1.5 };
    const integer = { key: 'key', value: '5' };

    expect(matches(decimal, { key: '1.5' })).toBe(true);
    expect(matches(integer, { key: 5 })).toBe(true);
  });

  it('compares boolean-like filters by truthiness', () => {
    const isTrue = { key: 'key', value: 'true' };
    const isFalseList = { key: 'key', value: ['False'] };

    expect([true, 'True', 'TRUE', false, 'yes'].map((key) => matches(isTrue, { key }))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    expect([false, 'false', true].map((key) => matches(isFalseList, { key }))).toEqual([true, true, false]);
  });

  it('reads an empty list filter as "true", as PostHog does', () => {
    const filter = { key: 'key', value: [] };

    expect(matches(filter, { key: true })).toBe(true);
    expect(matches(filter, { key: 'anything' })).toBe(false);
  });

  it('compares objects as JSON with sorted keys', () => {
    const filter = { key: 'key', value: { b: 'x', a: 'y' } };

    const result = matches(filter, { key: { a: 'y', b: 'x' } });

    expect(result).toBe(true);
  });

  it('reads a null value as the text "null"', () => {
    const filter = { key: 'key', value: 'null' };

    expect(matches(filter, { key: null })).toBe(true);
    expect(matches({ key: 'key', value: 'value' }, { key: null })).toBe(false);
  });

  it('folds case beyond ASCII, unlike the substring operators', () => {
    const filter = { key: 'key', value: 'É' };

    const result = matches(filter, { key: 'é' });

    expect(result).toBe(true);
  });
});

describe('matchProperty with is_not', () => {
  it('negates exact', () => {
    const filter = { key: 'key', value: ['value1', 'value2'], operator: 'is_not' };

    const results = ['value1', 'VALUE2', 'value3', '', null].map((key) => matches(filter, { key }));

    expect(results).toEqual([false, false, true, true, true]);
  });
});

describe('matchProperty with is_set and is_not_set', () => {
  it('counts any present value as set, null and empty text included', () => {
    const isSet = { key: 'key', value: 'is_set', operator: 'is_set' };
    const isNotSet = { key: 'key', value: 'is_not_set', operator: 'is_not_set' };

    const present = ['value', '', null, 0, false].map((key) => [
      matches(isSet, { key }),
      matches(isNotSet, { key }),
    ]);

    expect(present).toEqual(Array.from({ length: 5 }, () => [true, false]));
  });
});

describe('matchProperty with substring operators', () => {
  it('matches icontains case-insensitively on the value as text', () => {
    const filter = { key: 'key', value: 'vaLuE', operator: 'icontains' };

    const results = ['value', 'value2', 'vaLue3', '343tfvalUe5', '', 1234, '1234'].map((key) =>
      matches(filter, { key }),
    );

    expect(results).toEqual([true, true, true, true, false, false, false]);
  });

  it('reads numbers as text', () => {
    const filter = { key: 'key', value: '3', operator: 'icontains' };

    expect([323, 'val3', 'three'].map((key) => matches(filter, { key }))).toEqual([true, true, false]);
  });

  it('folds ASCII case only, as the flags service does', () => {
    const filter = { key: 'key', value: 'É', operator: 'icontains' };

    const result = matches(filter, { key: 'é' });

    expect(result).toBe(false);
  });

  it('negates icontains with not_icontains', () => {
    const filter = { key: 'key', value: 'posthog', operator: 'not_icontains' };

    expect(['x@PostHog.com', 'x@gmail.com'].map((key) => matches(filter, { key }))).toEqual([false, true]);
  });

  it.each([
    ['starts_with', 'HTTPS://', 'https://posthog.com', true],
    ['starts_with', 'posthog', 'https://posthog.com', false],
    ['not_starts_with', 'HTTPS://', 'https://posthog.com', false],
    ['ends_with', '.COM', 'posthog.com', true],
    ['ends_with', '.org', 'posthog.com', false],
    ['not_ends_with', '.org', 'posthog.com', true],
  ])('applies %s %s to %s: %s', (operator, value, key, expected) => {
    const filter = { key: 'key', value, operator };

    const result = matches(filter, { key });

    expect(result).toBe(expected);
  });
});

describe('matchProperty with regex and not_regex', () => {
  it('finds the pattern anywhere in the value', () => {
    const filter = { key: 'key', value: '\\.com$', operator: 'regex' };

    const results = ['value.com', 'value2.com', 'valuecom', '.com343tfvalue5', ''].map((key) =>
      matches(filter, { key }),
    );

    expect(results).toEqual([true, true, false, false, false]);
  });

  it('reads non-text filters and values as text', () => {
    const regex = { key: 'key', value: 4, operator: 'regex' };
    const notRegex = { key: 'key', value: 4, operator: 'not_regex' };

    expect(['4', 4, 'value'].map((key) => matches(regex, { key }))).toEqual([true, true, false]);
    expect(['4', 4, 'value'].map((key) => matches(notRegex, { key }))).toEqual([false, false, true]);
  });

  it('matches nothing with an invalid pattern, for regex and not_regex alike', () => {
    const regex = { key: 'key', value: '?*', operator: 'regex' };
    const notRegex = { key: 'key', value: '?*', operator: 'not_regex' };

    expect(matches(regex, { key: 'value.com' })).toBe(false);
    expect(matches(notRegex, { key: 'value.com' })).toBe(false);
  });

  it('accepts the Python-style inline flags and named groups PostHog users write', () => {
    const caseless = { key: 'key', value: '(?i)^abc$', operator: 'regex' };
    const named = { key: 'key', value: '^(?P<word>a+)b', operator: 'regex' };

    expect(matches(caseless, { key: 'ABC' })).toBe(true);
    expect(matches(named, { key: 'aab' })).toBe(true);
  });

  it('runs in linear time: a pattern that backtracks exponentially cannot hang the flags function', () => {
    // A backtracking engine takes 2^40 steps on this value (the public project token is enough to
    // send it as a person property); RE2, like PostHog's flags service, takes a few hundred.
    const nested = { key: 'key', value: '^(a+)+$', operator: 'regex' };

    expect(matches(nested, { key: `${'a'.repeat(40)}!` })).toBe(false);
    expect(matches(nested, { key: 'a'.repeat(40) })).toBe(true);
  });
});

describe('matchProperty with gt, gte, lt and lte', () => {
  it.each([
    ['gt', 1, [2, 3, '23', 0, -1], [true, true, true, false, false]],
    ['lt', 1, [0, -1, -3, '3', '1', 1], [true, true, true, false, false, false]],
    ['gte', 1, [2, 1, '3', 0, -1, -3], [true, true, true, false, false, false]],
    ['lte', '43', ['43', '42', 42, '44', 44], [true, true, true, false, false]],
    ['lt', '30', ['29', '100', 100], [true, false, false]],
  ])('compares numerically when both sides read as numbers (%s %s)', (operator, value, keys, expected) => {
    const filter = { key: 'key', value, operator };

    const results = keys.map((key) => matches(filter, { key }));

    expect(results).toEqual(expected);
  });

  it('reads a leading number out of text, as parseFloat does', () => {
    const filter = { key: 'key', value: '123aloha', operator: 'gt' };

    expect(['123', 122, 129].map((key) => matches(filter, { key }))).toEqual([false, false, true]);
  });

  it('compares as text when either side is not a number', () => {
    const gte = { key: 'key', value: 'xyz', operator: 'gte' };
    const lte = { key: 'key', value: 'Oo', operator: 'lte' };

    expect([matches(gte, { key: 'xyz' }), matches(gte, { key: 'abc' })]).toEqual([true, false]);
    expect([matches(lte, { key: 'Oo' }), matches(lte, { key: 'oo' })]).toEqual([true, false]);
  });

  it('never matches a null value', () => {
    const operators = ['gt', 'gte', 'lt', 'lte'];

    const results = operators.map((operator) => matches({ key: 'key', value: 1, operator }, { key: null }));

    expect(results).toEqual([false, false, false, false]);
  });
});

describe('matchProperty with date operators', () => {
  it('matches is_date_before and is_date_after strictly', () => {
    const before = { key: 'key', value: '2022-05-01', operator: 'is_date_before' };
    const after = { key: 'key', value: '2022-05-01', operator: 'is_date_after' };

    const beforeResults = [
      '2022-03-01',
      '2022-04-30',
      new Date('2022-04-30'),
      '2022-05-01',
      '2022-05-30',
    ].map((key) => matches(before, { key }));
    const afterResults = ['2022-05-02', '2022-05-30', '2022-05-01', '2022-04-30'].map((key) =>
      matches(after, { key }),
    );

    expect(beforeResults).toEqual([true, true, true, false, false]);
    expect(afterResults).toEqual([true, true, false, false]);
  });

  it('honours time zone offsets on both sides', () => {
    const filter = { key: 'key', value: '2022-04-05T12:34:12+01:00', operator: 'is_date_before' };

    const results = [
      '2022-05-30',
      '2022-03-30',
      '2022-04-05T12:34:11+01:00',
      '2022-04-05T11:34:11Z',
      '2022-04-05T11:34:13Z',
    ].map((key) => matches(filter, { key }));

    expect(results).toEqual([false, true, true, true, false]);
  });

  it('reads numbers as epoch milliseconds, as posthog-node does', () => {
    const filter = { key: 'key', value: '2022-05-01', operator: 'is_date_before' };

    const result = matches(filter, { key: Date.UTC(2022, 3, 30) });

    expect(result).toBe(true);
  });

  it('matches nothing, as the server, when either date is unparsable', () => {
    const badValue = matchProperty(
      { key: 'key', value: '2022-05-01', operator: 'is_date_before' },
      { key: 'abc' },
      now,
    );
    const badFilter = matchProperty(
      { key: 'key', value: 'abcd123', operator: 'is_date_before' },
      { key: '2022-05-30' },
      now,
    );
    const booleanFilter = matchProperty(
      { key: 'key', value: true, operator: 'is_date_after' },
      { key: '2022-05-30' },
      now,
    );

    expect([badValue, badFilter, booleanFilter]).toEqual([
      { matches: false, unresolved: 'unparsable_value' },
      { matches: false, unresolved: 'unparsable_value' },
      { matches: false, unresolved: 'unparsable_value' },
    ]);
  });

  // posthog-node's relative-date cases, with "now" at 2022-05-01T00:00:00Z.
  it.each([
    ['is_date_before', '-6h', '2022-03-01', true],
    ['is_date_before', '-6h', '2022-04-30', true],
    ['is_date_before', '-6h', new Date(Date.UTC(2022, 3, 30, 1, 2, 3)), true],
    ['is_date_before', '-6h', new Date('2022-04-30T01:02:03+02:00'), true],
    ['is_date_before', '-6h', new Date('2022-04-30T20:02:03+02:00'), false],
    ['is_date_before', '-6h', new Date('2022-04-30T19:59:03+02:00'), true],
    ['is_date_before', '-6h', '2022-05-30', false],
    ['is_date_after', '1h', '2022-05-02', true],
    ['is_date_after', '1h', '2022-04-30', false],
    ['is_date_before', '1h', '2022-05-01 00:00:00 GMT', false],
    ['is_date_before', '1h', '2022-04-30 22:00:00 GMT', true],
    ['is_date_before', '-1d', '2022-04-29 23:59:00 GMT', true],
    ['is_date_before', '-1d', '2022-04-30 00:00:01 GMT', false],
    ['is_date_before', '1w', '2022-04-23 00:00:00 GMT', true],
    ['is_date_before', '1w', '2022-04-24 00:00:00 GMT', false],
    ['is_date_before', '1m', '2022-03-01 00:00:00 GMT', true],
    ['is_date_before', '1m', '2022-04-01 00:00:00 GMT', false],
    ['is_date_before', '-1y', '2021-04-28 00:00:00 GMT', true],
    ['is_date_before', '-1y', '2021-05-01 00:00:01 GMT', false],
    ['is_date_after', '122h', '2022-05-01 00:00:00 GMT', true],
    ['is_date_after', '122h', '2022-04-23 01:00:00 GMT', false],
    ['is_date_after', '2d', '2022-04-29 00:00:01 GMT', true],
    ['is_date_after', '2d', '2022-04-29 00:00:00 GMT', false],
    ['is_date_after', '02w', '2022-05-01 00:00:00 GMT', true],
    ['is_date_after', '02w', '2022-04-16 00:00:00 GMT', false],
    ['is_date_after', '-1m', '2022-04-01 00:00:01 GMT', true],
    ['is_date_after', '-1m', '2022-04-01 00:00:00 GMT', false],
    ['is_date_after', '1y', '2021-05-01 00:00:01 GMT', true],
    ['is_date_after', '1y', '2021-05-01 00:00:00 GMT', false],
  ])('applies %s %s (relative) to %s: %s', (operator, value, key, expected) => {
    const filter = { key: 'key', value, operator };

    const result = matches(filter, { key });

    expect(result).toBe(expected);
  });

  it('matches is_date_exact, a flags-service operator, to the millisecond', () => {
    const filter = { key: 'key', value: '2022-05-01T10:00:00Z', operator: 'is_date_exact' };

    const result = matchProperty(filter, { key: '2022-05-01T11:00:00+01:00' }, now);

    expect(result).toEqual({ matches: true, unresolved: 'operator_not_in_sdk' });
  });
});

describe('matchProperty with semver operators', () => {
  it.each([
    [
      'semver_eq',
      '1.2.3',
      ['1.2.3', 'v1.2.3', '1.2.3-beta', '1.2.3.4', '1.2.4'],
      [true, true, true, true, false],
    ],
    ['semver_neq', '1.2.3', ['1.2.3', '1.2.4'], [false, true]],
    ['semver_gt', '1.9.9', ['1.10.0', '1.9.9', '1.9'], [true, false, false]],
    ['semver_gte', '1.2', ['1.2.0', '1.1.9', '2'], [true, false, true]],
    ['semver_lt', '2.0.0', ['1.99.99', '2.0.0'], [true, false]],
    ['semver_lte', '2.0.0', ['2.0.0', '2.0.1'], [true, false]],
    ['semver_tilde', '1.2.3', ['1.2.3', '1.2.9', '1.3.0', '1.2.2'], [true, true, false, false]],
    ['semver_caret', '1.2.3', ['1.2.3', '1.9.0', '2.0.0', '1.2.2'], [true, true, false, false]],
    ['semver_caret', '0.2.3', ['0.2.3', '0.2.9', '0.3.0'], [true, true, false]],
    ['semver_caret', '0.0.3', ['0.0.3', '0.0.4'], [true, false]],
    ['semver_wildcard', '1.2.*', ['1.2.0', '1.2.99', '1.3.0', '1.1.9'], [true, true, false, false]],
    ['semver_wildcard', '1.*', ['1.0.0', '1.99.0', '2.0.0'], [true, true, false]],
  ])('applies %s %s', (operator, value, keys, expected) => {
    const filter = { key: 'key', value, operator };

    const results = keys.map((key) => matches(filter, { key }));

    expect(results).toEqual(expected);
  });

  it('reads leading zeros as the server does, where posthog-node defers', () => {
    const filter = { key: 'key', value: '3.8.0', operator: 'semver_eq' };

    const result = matchProperty(filter, { key: '3.08' }, now);

    expect(result).toEqual({ matches: true, unresolved: 'unparsable_value' });
  });

  it('reads 1.*.* and * as wildcards, as the server does', () => {
    const twoStars = { key: 'key', value: '1.*.*', operator: 'semver_wildcard' };
    const anyVersion = { key: 'key', value: '*', operator: 'semver_wildcard' };

    expect([matches(twoStars, { key: '1.5.0' }), matches(twoStars, { key: '2.0.0' })]).toEqual([true, false]);
    expect(matches(anyVersion, { key: '7.1.0' })).toBe(true);
  });

  it('matches nothing when a version is unreadable', () => {
    const filter = { key: 'key', value: '1.2.3', operator: 'semver_gt' };

    const result = matchProperty(filter, { key: 'not-a-version' }, now);

    expect(result).toEqual({ matches: false, unresolved: 'unparsable_value' });
  });
});

describe('matchProperty with an absent property', () => {
  // posthog-node raises InconclusiveMatchError here and asks the server; Flock is the server.
  it.each([
    ['exact', false],
    ['is_set', false],
    ['icontains', false],
    ['regex', false],
    ['gt', false],
    ['is_date_before', false],
    ['semver_eq', false],
    ['is_not_set', true],
    ['is_not', true],
    ['not_icontains', true],
    ['not_regex', true],
    ['not_starts_with', true],
    ['not_ends_with', true],
  ])('answers %s with the server rule (%s) and says the SDK would defer', (operator, expected) => {
    const filter = { key: 'email', value: '1.0.0', operator };

    const result = matchProperty(filter, { name: 'Ada' }, now);

    expect(result).toEqual({ matches: expected, unresolved: 'missing_property' });
  });

  it('matches no negative operator when the filter has no value', () => {
    const filter = { key: 'email', operator: 'is_not' };

    const result = matchProperty(filter, {}, now);

    expect(result.matches).toBe(false);
  });

  it("never reads a property from Object's prototype", () => {
    const filter = { key: 'constructor', value: 'Object', operator: 'icontains' };

    const result = matchProperty(filter, {}, now);

    expect(result).toEqual({ matches: false, unresolved: 'missing_property' });
  });
});

describe('matchProperty with other operators', () => {
  it('matches nothing with an unknown operator, and says the SDK would defer', () => {
    const filter = { key: 'key', value: 'x', operator: 'is_unknown' };

    const result = matchProperty(filter, { key: 'x' }, now);

    expect(result).toEqual({ matches: false, unresolved: 'operator_not_in_sdk' });
  });

  it('matches icontains_multi, a flags-service operator, on any of its values', () => {
    const filter = { key: 'key', value: ['gmail', 'yahoo'], operator: 'icontains_multi' };

    const results = ['a@GMAIL.com', 'a@posthog.com'].map((key) => matches(filter, { key }));

    expect(results).toEqual([true, false]);
  });

  it('treats a missing or null operator as exact', () => {
    const filter = { key: 'key', value: 'value', operator: null };

    const result = matches(filter, { key: 'Value' });

    expect(result).toBe(true);
  });
});

describe('matchProperty with the texts of an evaluation', () => {
  it('reads a date value once for every date filter on it', () => {
    // A parenthesised comment of any length is still a date: its parse reads all of it.
    const signedUp = `2022-04-01 (${'x'.repeat(1000)})`;
    const texts = valueTexts();
    const filters = Array.from({ length: 28 }, (_, i) => ({
      key: 'signed_up',
      operator: 'is_date_before',
      value: `2022-04-${String(i + 2).padStart(2, '0')}`,
    }));

    const results = filters.map(
      (filter) => matchProperty(filter, { signed_up: signedUp }, now, texts).matches,
    );

    expect(results.every(Boolean)).toBe(true);
    expect(texts.dates.size).toBe(1);
  });
});

describe('matchProperty: the cost of many filters on one large property', () => {
  /** Characters of the strings `method` was called on while `run` ran. */
  function charactersThrough(method: 'replace' | 'toLowerCase', run: () => void): number {
    const spy = jest.spyOn(String.prototype, method);
    try {
      run();
      return spy.mock.contexts.reduce((sum: number, self) => sum + String(self).length, 0);
    } finally {
      spy.mockRestore();
    }
  }

  // A person's 160 KB property (anyone with the project token can set it), 50 filters naming it.
  const value = 'Ab'.repeat(80_000);

  it.each([
    ['not_icontains', 'replace'],
    ['not_starts_with', 'replace'],
    ['is_not', 'toLowerCase'],
  ] as const)('folds the value once per person for 50 %s filters', (operator, method) => {
    // Before, each filter folded the 160 KB again: 8 million characters per person.
    const filters = Array.from({ length: 50 }, (_, i) => ({ key: 'p', value: `zz${i}`, operator }));
    const persons = [{ p: value }, { p: value }];
    const characters = charactersThrough(method, () => {
      for (const properties of persons) {
        // One memo per person, as the persons list, a cohort calculation and a flags request keep.
        const texts = valueTexts();
        for (const filter of filters)
          expect(matchProperty(filter, properties, now, texts).matches).toBe(true);
      }
    });
    expect(characters).toBeLessThan(persons.length * 2 * value.length);
  });

  it('folds each filter’s value once, however many persons it is matched with', () => {
    // Before, every person folded every filter's 10 KB value again: 20 persons x 50 x 10 KB here.
    const filters = Array.from({ length: 50 }, (_, i) => ({
      key: 'p',
      value: `${'Ab'.repeat(5_000)}${i}`,
      operator: 'not_icontains',
    }));
    const persons = Array.from({ length: 20 }, (_, i) => ({ p: `person ${i}` }));
    const characters = charactersThrough('replace', () => {
      for (const properties of persons)
        for (const filter of filters) expect(matches(filter, properties)).toBe(true);
    });
    expect(characters).toBeLessThan(2 * filters.length * 10_002);
  });

  it('folds a filter’s value again once the filter holds another', () => {
    const filter = { key: 'p', value: 'GOLD', operator: 'icontains' };
    expect(matches(filter, { p: 'gold card' })).toBe(true);
    filter.value = 'SILVER';
    expect(matches(filter, { p: 'gold card' })).toBe(false);
  });

  it('folds a value again once the bag holds another, with the same memo', () => {
    const properties: Record<string, unknown> = { p: 'Gold' };
    const texts = valueTexts();
    const filter = { key: 'p', value: 'gold', operator: 'icontains' };
    expect(matchProperty(filter, properties, now, texts).matches).toBe(true);
    properties.p = 'Silver';
    expect(matchProperty(filter, properties, now, texts).matches).toBe(false);
    expect(
      matchProperty({ ...filter, value: 'silver', operator: 'exact' }, properties, now, texts).matches,
    ).toBe(true);
  });
});
