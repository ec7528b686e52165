import {
  countByNameAndDay,
  eventDefinitionIdFor,
  needsLastSeenBump,
  volume30Day,
  volumeWindow,
} from '../../../functions/shared/domain/definitions';

describe('event definitions', () => {
  it('derives the same definition id for the same project and name, and another for another project', () => {
    expect(eventDefinitionIdFor(1, '$pageview')).toBe(eventDefinitionIdFor(1, '$pageview'));
    expect(eventDefinitionIdFor(1, '$pageview')).not.toBe(eventDefinitionIdFor(2, '$pageview'));
    expect(eventDefinitionIdFor(1, '$pageview')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/);
  });

  it('bumps last_seen_at only when it is missing or from an earlier UTC day', () => {
    const now = new Date('2024-03-01T00:30:00.000Z');
    expect(needsLastSeenBump(undefined, now)).toBe(true);
    expect(needsLastSeenBump(null, now)).toBe(true);
    expect(needsLastSeenBump('2024-02-29T23:59:59.999Z', now)).toBe(true);
    expect(needsLastSeenBump('2024-03-01T00:00:00.000Z', now)).toBe(false);
    expect(needsLastSeenBump('2024-03-01T00:10:00.000Z', now)).toBe(false);
  });

  it('counts events per name and UTC day of their timestamp, leaving out $$plugin_metrics', () => {
    const counts = countByNameAndDay([
      { event: '$pageview', timestamp: '2024-03-01T23:59:59.000Z' },
      { event: '$pageview', timestamp: '2024-03-02T00:00:00.000Z' },
      { event: '$pageview', timestamp: '2024-03-02T10:00:00.000Z' },
      { event: 'signup', timestamp: '2024-03-02T10:00:00.000Z' },
      { event: '$$plugin_metrics', timestamp: '2024-03-02T10:00:00.000Z' },
    ]);
    expect(counts).toEqual(
      new Map([
        [
          '$pageview',
          new Map([
            ['2024-03-01', 1],
            ['2024-03-02', 2],
          ]),
        ],
        ['signup', new Map([['2024-03-02', 1]])],
      ]),
    );
  });

  it('sums the 30 UTC days that end today, today included', () => {
    const now = new Date('2024-03-30T15:00:00.000Z');
    expect(volumeWindow(now)).toEqual({ from: '2024-03-01', to: '2024-03-30' });
    expect(
      volume30Day(
        [
          { day: '2024-02-29', count: 100 },
          { day: '2024-03-01', count: 1 },
          { day: '2024-03-15', count: 2 },
          { day: '2024-03-30', count: 4 },
          { day: '2024-03-31', count: 1000 },
        ],
        now,
      ),
    ).toBe(7);
  });
});
