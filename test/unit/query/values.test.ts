import { isoInTimezone, offsetMinutes } from '../../../functions/shared/query/values';

describe('datetimes of a result in the project’s timezone', () => {
  it('prints an instant with the timezone’s offset at that instant', () => {
    const micros = (iso: string) => BigInt(Date.parse(iso)) * 1000n;
    expect(isoInTimezone(micros('2024-01-10T17:00:00Z'), 'America/New_York')).toBe(
      '2024-01-10T12:00:00-05:00',
    );
    expect(isoInTimezone(micros('2024-07-10T17:00:00.5Z'), 'America/New_York')).toBe(
      '2024-07-10T13:00:00.500000-04:00',
    );
    expect(isoInTimezone(micros('2024-07-10T17:00:00Z'), 'UTC')).toBe('2024-07-10T17:00:00Z');
    expect(offsetMinutes('Asia/Kolkata', Date.parse('2024-01-01T00:00:00Z'))).toBe(330);
  });

  it('builds one formatter per timezone, not one per value', () => {
    // Counted, not timed: a formatter costs some 70 µs to build, and a result may hold 50,000 rows of
    // datetimes (before, one per value: seconds of CPU for one query).
    const built = jest.spyOn(Intl, 'DateTimeFormat');
    try {
      for (let i = 0; i < 1_000; i++)
        isoInTimezone(BigInt(1_700_000_000_000_000 + i * 3_600_000_000), 'Europe/Paris');
      expect(built.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      built.mockRestore();
    }
  });
});
