import { parseRelativeDate } from '../../../../functions/shared/domain/flags/dates';

// posthog-node's `relative date parsing` cases.
const now = new Date('2020-01-01T12:01:20.134Z');
const relative = (value: string, at: Date = now) => parseRelativeDate(value, at)?.toISOString() ?? null;

describe('parseRelativeDate', () => {
  it('refuses anything but a whole number and one of h, d, w, m, y', () => {
    const values = ['1', '1x', '1.2y', '1z', '1s', '123344000.134m', 'bazinga', '000bello', '000hello', '1H'];

    const parsed = values.map((value) => relative(value));

    expect(parsed).toEqual(values.map(() => null));
  });

  it('accepts leading zeros and a leading minus, both meaning "ago"', () => {
    const values = ['000h', '1000h', '-7d'];

    const parsed = values.map((value) => relative(value));

    expect(parsed).toEqual([
      '2020-01-01T12:01:20.134Z',
      '2019-11-20T20:01:20.134Z',
      '2019-12-25T12:01:20.134Z',
    ]);
  });

  it('refuses amounts of 10000 or more', () => {
    const parsed = ['9999h', '10000h', '1000000h', '100000000000000000y'].map((value) => relative(value));

    expect(parsed).toEqual(['2018-11-10T21:01:20.134Z', null, null, null]);
  });

  it.each([
    ['1h', '2020-01-01T11:01:20.134Z'],
    ['2h', '2020-01-01T10:01:20.134Z'],
    ['24h', '2019-12-31T12:01:20.134Z'],
    ['30h', '2019-12-31T06:01:20.134Z'],
    ['48h', '2019-12-30T12:01:20.134Z'],
    ['1d', '2019-12-31T12:01:20.134Z'],
    ['2d', '2019-12-30T12:01:20.134Z'],
    ['7d', '2019-12-25T12:01:20.134Z'],
    ['14d', '2019-12-18T12:01:20.134Z'],
    ['30d', '2019-12-02T12:01:20.134Z'],
    ['1w', '2019-12-25T12:01:20.134Z'],
    ['2w', '2019-12-18T12:01:20.134Z'],
    ['4w', '2019-12-04T12:01:20.134Z'],
    ['8w', '2019-11-06T12:01:20.134Z'],
    ['1m', '2019-12-01T12:01:20.134Z'],
    ['2m', '2019-11-01T12:01:20.134Z'],
    ['4m', '2019-09-01T12:01:20.134Z'],
    ['10m', '2019-03-01T12:01:20.134Z'],
    ['24m', '2018-01-01T12:01:20.134Z'],
    ['1y', '2019-01-01T12:01:20.134Z'],
    ['2y', '2018-01-01T12:01:20.134Z'],
    ['8y', '2012-01-01T12:01:20.134Z'],
  ])('reads %s as %s', (value, expected) => {
    const parsed = relative(value);

    expect(parsed).toBe(expected);
  });

  it('reads months as calendar months and 12m as 1y', () => {
    const april = new Date('2020-04-03T00:00:00Z');

    const parsed = ['1m', '2m', '4m', '8m', '12m', '1y'].map((value) => relative(value, april));

    expect(parsed).toEqual([
      '2020-03-03T00:00:00.000Z',
      '2020-02-03T00:00:00.000Z',
      '2019-12-03T00:00:00.000Z',
      '2019-08-03T00:00:00.000Z',
      '2019-04-03T00:00:00.000Z',
      '2019-04-03T00:00:00.000Z',
    ]);
  });

  it('clamps the day to the shorter month at each step back', () => {
    const endOfMarch = new Date('2021-03-31T09:00:00Z');
    const leapDay = new Date('2024-02-29T09:00:00Z');

    const months = ['1m', '2m'].map((value) => relative(value, endOfMarch));
    const year = relative('1y', leapDay);

    expect(months).toEqual(['2021-02-28T09:00:00.000Z', '2021-01-28T09:00:00.000Z']);
    expect(year).toBe('2023-02-28T09:00:00.000Z');
  });
});
