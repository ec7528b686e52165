import { eventTimestamp } from '../../../functions/shared/domain/timestamps';

/** Worked examples of PostHog's `handleTimestamp` (plugin-server `timestamps.ts`): now = 12:00:00Z, timestamp 11:00:00Z. */
const now = new Date('2024-03-01T12:00:00.000Z');
const at = (event: { timestamp?: unknown; offset?: unknown }, sentAt: string | null = null): string =>
  eventTimestamp(event, now, sentAt).toISOString();

describe('eventTimestamp', () => {
  it('corrects a client clock that runs 10 s fast by the skew between sent_at and now', () => {
    expect(at({ timestamp: '2024-03-01T11:00:00.000Z' }, '2024-03-01T12:00:10.000Z')).toBe(
      '2024-03-01T10:59:50.000Z',
    );
  });

  it('corrects a client clock that runs 10 s slow', () => {
    expect(at({ timestamp: '2024-03-01T11:00:00.000Z' }, '2024-03-01T11:59:50.000Z')).toBe(
      '2024-03-01T11:00:10.000Z',
    );
  });

  it('keeps the timestamp when sent_at equals now', () => {
    expect(at({ timestamp: '2024-03-01T11:00:00.000Z' }, '2024-03-01T12:00:00.000Z')).toBe(
      '2024-03-01T11:00:00.000Z',
    );
  });

  it('keeps the timestamp as sent when there is no sent_at', () => {
    expect(at({ timestamp: '2024-03-01T11:00:00.000Z' })).toBe('2024-03-01T11:00:00.000Z');
  });

  it('places an event with only an offset (ms) that long before now', () => {
    expect(at({ offset: 5000 })).toBe('2024-03-01T11:59:55.000Z');
  });

  it('prefers the timestamp over an offset, as PostHog 2022 does (the Rust capture lets the offset win)', () => {
    expect(at({ timestamp: '2024-03-01T11:00:00.000Z', offset: 5000 })).toBe('2024-03-01T11:00:00.000Z');
  });

  it('uses now when there is neither timestamp nor offset', () => {
    expect(at({})).toBe('2024-03-01T12:00:00.000Z');
  });

  it('uses now for an unparsable timestamp', () => {
    expect(at({ timestamp: 'yesterday-ish' })).toBe('2024-03-01T12:00:00.000Z');
  });

  it('clamps a result more than 23 hours in the future to now', () => {
    expect(at({ timestamp: '2024-03-02T11:00:00.001Z' })).toBe('2024-03-01T12:00:00.000Z');
  });

  it('keeps a result up to 23 hours in the future', () => {
    expect(at({ timestamp: '2024-03-02T11:00:00.000Z' })).toBe('2024-03-02T11:00:00.000Z');
  });

  it('replaces a year before 0 by now', () => {
    expect(at({ timestamp: -62167219200001 })).toBe('2024-03-01T12:00:00.000Z');
  });

  it('replaces by now a result beyond what a Date can hold, from an offset or a skew correction', () => {
    // Prepare: ±8.64e15 ms is the range of a Date; further out its year is NaN.
    const beyond: [{ timestamp?: unknown; offset?: unknown }, string | null][] = [
      [{ offset: 1e20 }, null],
      [{ offset: -1e20 }, null],
      [{ timestamp: '+275760-09-13T00:00:00.000Z' }, '1970-01-01T00:00:00.000Z'],
      [{ timestamp: 8.64e15 }, '-271821-04-20T00:00:00.000Z'],
    ];

    // Act
    const results = beyond.map(([event, sentAt]) => at(event, sentAt));

    // Assess
    expect(results).toEqual(beyond.map(() => '2024-03-01T12:00:00.000Z'));
  });
});
