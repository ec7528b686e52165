import {
  parseIsoTimestamp,
  timestampParserPlugin,
} from '../../../functions/shared/domain/plugins/timestamp-parser';
import type { PluginEvent } from '../../../functions/shared/domain/plugins/types';
import { metaFor, pluginEvent, run } from './fixtures';

const parse = async (
  timestamp: PluginEvent['timestamp'],
  properties: Record<string, unknown> | undefined = {},
) => run(timestampParserPlugin, pluginEvent({ timestamp, properties }), metaFor(timestampParserPlugin));

const WEDNESDAY_27_JAN_2021_1030 = {
  day_of_the_week: 'Wednesday',
  day: 27,
  month: 1,
  year: 2021,
  hour: 10,
  minute: 30,
};

describe('Timestamp Parser plugin', () => {
  it('adds weekday, day, month, year, hour and minute of an ISO timestamp, in UTC', async () => {
    const event = await parse('2021-01-27T10:30:03.557Z', { keepMe: 'nothing changes' });
    expect(event?.properties).toEqual({ keepMe: 'nothing changes', ...WEDNESDAY_27_JAN_2021_1030 });
  });

  it('reads an offset timestamp at its UTC instant', async () => {
    expect((await parse('2021-01-27T23:30:00+02:00'))?.properties).toEqual({
      ...WEDNESDAY_27_JAN_2021_1030,
      hour: 21,
    });
    expect((await parse('2021-01-27T10:30:03.557000+00:00'))?.properties).toEqual(WEDNESDAY_27_JAN_2021_1030);
  });

  it('reads a date-only timestamp as midnight', async () => {
    expect((await parse('2021-01-25'))?.properties).toEqual({
      day_of_the_week: 'Monday',
      day: 25,
      month: 1,
      year: 2021,
      hour: 0,
      minute: 0,
    });
  });

  it('reads numbers above 999999999999 as milliseconds and others as seconds', async () => {
    expect((await parse(1611743403557))?.properties).toEqual(WEDNESDAY_27_JAN_2021_1030);
    expect((await parse(1611743403.557))?.properties).toEqual(WEDNESDAY_27_JAN_2021_1030);
  });

  it('gives an event without properties its properties when it has a timestamp', async () => {
    expect((await parse('2021-01-27T10:30:00Z', undefined))?.properties).toEqual(WEDNESDAY_27_JAN_2021_1030);
  });

  it('leaves events without a timestamp or with an unparsable one unchanged', async () => {
    expect((await parse(undefined, { a: 1 }))?.properties).toEqual({ a: 1 });
    expect((await parse('yesterday', { a: 1 }))?.properties).toEqual({ a: 1 });
    expect((await parse('2021-02-30T00:00:00Z', { a: 1 }))?.properties).toEqual({ a: 1 });
    expect((await parse('27/01/2021', { a: 1 }))?.properties).toEqual({ a: 1 });
  });

  it('parses only ISO 8601 extended forms', () => {
    expect(parseIsoTimestamp('2021-01-27T10:30Z')?.toISOString()).toBe('2021-01-27T10:30:00.000Z');
    expect(parseIsoTimestamp('2021-01')?.toISOString()).toBe('2021-01-01T00:00:00.000Z');
    expect(parseIsoTimestamp('2021-01-27T10:30:00-0130')?.toISOString()).toBe('2021-01-27T12:00:00.000Z');
    expect(parseIsoTimestamp('Wed Jan 27 2021')).toBeNull();
  });
});
