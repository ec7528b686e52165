import {
  matchesAllFilters,
  matchesFilter,
  parseEventFilters,
  UnparsableFiltersError,
} from '../../../functions/shared/domain/event-filters';
import type { EventPropertyFilter } from '../../../functions/shared/domain/event-filters';

const filter = (
  operator: EventPropertyFilter['operator'],
  value: unknown,
  key = 'plan',
): EventPropertyFilter => ({
  key,
  value,
  operator,
  type: 'event',
});

describe('parseEventFilters', () => {
  it('reads PostHog’s JSON list, defaulting to exact event filters', () => {
    expect(parseEventFilters('[{"key":"plan","value":"pro"}]')).toEqual([
      { key: 'plan', value: 'pro', operator: 'exact', type: 'event' },
    ]);
  });

  it('reads an object of key: value pairs as exact filters', () => {
    expect(parseEventFilters('{"plan":"pro"}')).toEqual([
      { key: 'plan', value: 'pro', operator: 'exact', type: 'event' },
    ]);
  });

  it.each(['not json', '[{"value":1}]', '[{"key":"a","operator":"sounds_like"}]', '"text"'])(
    'refuses %s as unparsable',
    (raw) => {
      expect(() => parseEventFilters(raw)).toThrow(UnparsableFiltersError);
    },
  );

  it.each(['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'lte'])(
    'refuses a %s filter without a value (it compares with nothing), naming the operator',
    (operator) => {
      // Before, an `icontains` of no value reached an event holding the property and threw: a 500.
      expect(() => parseEventFilters(JSON.stringify([{ key: 'plan', operator }]))).toThrow(
        new UnparsableFiltersError(`A property filter with operator ${operator} needs a value.`),
      );
    },
  );

  it('takes is_set and is_not_set without a value', () => {
    expect(
      parseEventFilters('[{"key":"plan","operator":"is_set"},{"key":"x","operator":"is_not_set"}]'),
    ).toEqual([
      { key: 'plan', operator: 'is_set', type: 'event' },
      { key: 'x', operator: 'is_not_set', type: 'event' },
    ]);
  });

  it('bounds what a request may ask: 50 filters, keys of 400 characters, values of 10,000 bytes', () => {
    const many = (n: number) =>
      JSON.stringify(Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: i })));
    expect(parseEventFilters(many(50))).toHaveLength(50);
    expect(() => parseEventFilters(many(51))).toThrow('At most 50 property filters are allowed.');
    expect(parseEventFilters(JSON.stringify([{ key: 'k'.repeat(400), value: 1 }]))).toHaveLength(1);
    expect(() => parseEventFilters(JSON.stringify([{ key: 'k'.repeat(401), value: 1 }]))).toThrow(
      'A property filter key is at most 400 characters.',
    );
    // 9,998 characters and two quotes: 10,000 bytes of JSON.
    expect(parseEventFilters(JSON.stringify([{ key: 'k', value: 'v'.repeat(9_998) }]))).toHaveLength(1);
    expect(() => parseEventFilters(JSON.stringify({ k: ['v'.repeat(9_998)] }))).toThrow(
      'A property filter value is at most 10000 bytes of JSON.',
    );
  });

  it('treats an absent or empty parameter as no filter', () => {
    expect(parseEventFilters(undefined)).toEqual([]);
    expect(parseEventFilters('')).toEqual([]);
  });
});

describe('matchesFilter', () => {
  const properties = { plan: 'Pro', seats: 5, price: '12.5', tags: ['a'], empty: null };

  it.each([
    ['exact', 'Pro', true],
    ['exact', 'pro', false],
    ['exact', ['free', 'Pro'], true],
    ['is_not', 'free', true],
    ['is_not', 'Pro', false],
    ['icontains', 'RO', true],
    ['not_icontains', 'ro', false],
    ['regex', '^P.o$', true],
    ['not_regex', '^x', true],
    ['regex', '([', false],
  ] as const)('%s %j on plan=Pro → %s', (operator, value, expected) => {
    expect(matchesFilter(filter(operator, value), properties)).toBe(expected);
  });

  it('runs regex in linear time, as ClickHouse (RE2) does: a backtracking pattern cannot hang a listing', () => {
    const events = { path: `${'a'.repeat(40)}!` };

    expect(matchesFilter(filter('regex', '^(a+)+$', 'path'), events)).toBe(false);
    expect(matchesFilter(filter('not_regex', '^(a+)+$', 'path'), events)).toBe(true);
  });

  it('compares numbers and numeric text as numbers', () => {
    expect(matchesFilter(filter('gt', '4', 'seats'), properties)).toBe(true);
    expect(matchesFilter(filter('lte', 12.5, 'price'), properties)).toBe(true);
    expect(matchesFilter(filter('lt', 'abc', 'seats'), properties)).toBe(false);
    expect(matchesFilter(filter('gt', 1), properties)).toBe(false);
  });

  it('matches a number with its text (5 equals "5")', () => {
    expect(matchesFilter(filter('exact', '5', 'seats'), properties)).toBe(true);
  });

  it('lets negated operators match events without the property', () => {
    expect(matchesFilter(filter('is_not', 'x', 'missing'), properties)).toBe(true);
    expect(matchesFilter(filter('not_icontains', 'x', 'missing'), properties)).toBe(true);
    expect(matchesFilter(filter('exact', 'x', 'missing'), properties)).toBe(false);
  });

  it('tells set from not set (null counts as set, as the property exists)', () => {
    expect(matchesFilter(filter('is_set', undefined, 'empty'), properties)).toBe(true);
    expect(matchesFilter(filter('is_not_set', undefined, 'missing'), properties)).toBe(true);
    expect(matchesFilter(filter('is_set', undefined, 'missing'), properties)).toBe(false);
  });
});

describe('matchesAllFilters', () => {
  it('needs every filter, person filters on the person’s properties', () => {
    const filters = [
      filter('exact', 'Pro'),
      { ...filter('exact', 'a@x.com', 'email'), type: 'person' as const },
    ];
    expect(matchesAllFilters(filters, { plan: 'Pro' }, { email: 'a@x.com' })).toBe(true);
    expect(matchesAllFilters(filters, { plan: 'Pro' }, {})).toBe(false);
  });
});

describe('the cost of filters, as a hostile member could write them', () => {
  // A 100 KB object property (sent with the public token) and a short query naming it often.
  const big = Object.fromEntries(Array.from({ length: 8_000 }, (_, i) => [`k${i}`, i]));
  const size = JSON.stringify(big).length;

  /** Characters `JSON.stringify` produced while `run` ran. */
  function stringified(run: () => void): number {
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      run();
      return stringify.mock.results.reduce(
        (sum, result) => sum + (typeof result.value === 'string' ? result.value.length : 0),
        0,
      );
    } finally {
      stringify.mockRestore();
    }
  }

  it('turns a property into text once per event, whatever the candidates of an exact filter', () => {
    // Before, every candidate turned the property into JSON again: 2,000 × 100 KB for one event.
    const candidates = Array.from({ length: 2_000 }, (_, i) => `c${i}`);
    const filters = [filter('exact', candidates, 'big'), filter('is_not', candidates, 'big')];
    let matched: boolean | undefined;
    const chars = stringified(() => {
      matched = matchesAllFilters(filters, { big });
    });
    expect(matched).toBe(false);
    expect(chars).toBeLessThan(2 * size);
  });

  it('turns a property into text once per event, whatever the filters naming it', () => {
    const filters = Array.from({ length: 200 }, (_, i) => filter('not_icontains', `absent-${i}`, 'big'));
    let matched: boolean | undefined;
    const chars = stringified(() => {
      matched = matchesAllFilters(filters, { big });
    });
    expect(matched).toBe(true);
    expect(chars).toBeLessThan(2 * size);
  });

  it('answers as before for an exact candidate list that holds the property’s text', () => {
    expect(matchesAllFilters([filter('exact', ['x', JSON.stringify({ a: 1 })], 'o')], { o: { a: 1 } })).toBe(
      true,
    );
  });
});
