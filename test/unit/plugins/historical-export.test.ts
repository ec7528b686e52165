import { exportRangeOf } from '../../../functions/shared/domain/plugins/historical-export';

describe('the historical export range', () => {
  it('covers whole UTC days for dates alone, the end day included', () => {
    // Act
    const result = exportRangeOf({ dateFrom: '2024-03-01', dateTo: '2024-03-02' });

    // Assess
    expect(result).toEqual({
      ok: true,
      range: {
        from: new Date('2024-03-01T00:00:00.000Z'),
        toExclusive: new Date('2024-03-03T00:00:00.000Z'),
      },
    });
  });

  it('includes the end instant of a date-time, read as UTC without a zone', () => {
    // Act
    const result = exportRangeOf({ dateFrom: '2024-03-01T10:00', dateTo: '2024-03-01T12:00:00.500+01:00' });

    // Assess
    expect(result).toEqual({
      ok: true,
      range: {
        from: new Date('2024-03-01T10:00:00.000Z'),
        toExclusive: new Date('2024-03-01T11:00:00.501Z'),
      },
    });
  });

  it.each([
    [{ dateFrom: 'March', dateTo: '2024-03-01' }, 'dateFrom'],
    [{ dateFrom: 20240301, dateTo: '2024-03-01' }, 'dateFrom'],
    [{ dateFrom: '2024-03-01', dateTo: '2024-13-45' }, 'dateTo'],
    [{ dateFrom: '2024-03-02', dateTo: '2024-03-01' }, 'dateTo'],
    [{ dateFrom: '2024-03-01', dateTo: `2024-03-01T00:00:00.000${'0'.repeat(100)}Z` }, 'dateTo'],
  ])('refuses %j, naming %s', (payload, field) => {
    // Act
    const result = exportRangeOf(payload);

    // Assess
    expect(result).toMatchObject({ ok: false, field });
  });
});
