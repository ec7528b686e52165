import { maxCsvColumns, toCsv } from '../../../../functions/shared/http/csv';

const lines = (body: string): string[] => body.split('\r\n').slice(0, -1);

describe('toCsv', () => {
  it('flattens records into dotted columns: the leading ones first, then the rest sorted', () => {
    const csv = toCsv(
      [
        { id: 1, b: { y: 2, x: [3] } },
        { id: 2, a: null },
      ],
      { leading: ['id'] },
    );

    expect(lines(csv.body)).toEqual(['id,a,b.x.0,b.y', '1,,3,2', '2,,,']);
    expect(csv).toMatchObject({ rows: 2, omittedColumns: 0 });
  });

  it('neutralises formulas in cells and in column names, and quotes what needs quoting', () => {
    const csv = toCsv([{ '=cmd': '=1+2', '@a,b': '+SUM(A1)', n: -5, q: 'say "hi"', t: '\tx' }]);

    expect(lines(csv.body)).toEqual([`'=cmd,"'@a,b",n,q,t`, `'=1+2,'+SUM(A1),-5,"say ""hi""",'\tx`]);
  });

  it(`keeps at most ${maxCsvColumns} columns: the leading ones, then the most common (the first seen among equals)`, () => {
    // Prepare: every record has `common`; one record alone has 1,500 keys of its own.
    const wide = Object.fromEntries(
      Array.from({ length: 1_500 }, (_, k) => [`k${String(k).padStart(4, '0')}`, k]),
    );
    const records = [
      { id: 1, common: 'a', ...wide },
      { id: 2, common: 'b', rare: 'x' },
      { id: 3, common: 'c' },
    ];

    // Act
    const csv = toCsv(records, { leading: ['id', 'absent'] });

    // Assess: `absent` is kept though no record has it; `rare` is seen after the wide record's keys.
    const [header = '', ...rows] = lines(csv.body);
    const columns = header.split(',');
    expect(columns).toHaveLength(maxCsvColumns);
    expect(columns.slice(0, 3)).toEqual(['id', 'absent', 'common']);
    expect(columns.at(-1)).toBe(`k${String(maxCsvColumns - 4).padStart(4, '0')}`);
    expect(columns).not.toContain('rare');
    expect(csv.omittedColumns).toBe(1_500 + 1 - (maxCsvColumns - 3));
    expect(rows.map((row) => row.split(',').length)).toEqual([maxCsvColumns, maxCsvColumns, maxCsvColumns]);
  });

  it('holds, within maxBytes, the most records from the first that fit, with only their columns', () => {
    // Prepare: the body of the first two records alone, counted in bytes (a multi-byte character too).
    const records = [
      { id: 1, a: 'é' },
      { id: 2, b: 'x'.repeat(50) },
      { id: 3, c: 'late' },
    ];
    const twoRows = toCsv(records.slice(0, 2), { leading: ['id'] }).body;
    const budget = Buffer.byteLength(twoRows);

    // Act
    const exact = toCsv(records, { leading: ['id'], maxBytes: budget });
    const lessByOne = toCsv(records, { leading: ['id'], maxBytes: budget - 1 });
    const tooSmall = toCsv(records, { leading: ['id'], maxBytes: 1 });

    // Assess: no `c` column, which only the record left out has; at least one record, always.
    expect(exact).toEqual({ body: twoRows, rows: 2, omittedColumns: 0 });
    expect(lessByOne.rows).toBe(1);
    expect(lines(lessByOne.body)).toEqual(['id,a', '1,é']);
    expect(lines(tooSmall.body)).toEqual(['id,a', '1,é']);
  });

  it('writes the header alone when there are no records', () => {
    expect(toCsv([], { leading: ['id', 'event'] })).toEqual({
      body: 'id,event\r\n',
      rows: 0,
      omittedColumns: 0,
    });
  });
});

describe('toCsv column spellings', () => {
  it('gives two spellings of one dotted column one column (first place, last value), as a map of paths would', () => {
    const csv = toCsv(
      [
        { id: 1, a: { b: 'nested' }, 'a.b': 'dotted', c: 2 },
        { id: 2, '': { x: 'top' } },
      ],
      {
        leading: ['id'],
      },
    );
    expect(lines(csv.body)).toEqual(['id,a.b,c,x', '1,dotted,2,', '2,,,top']);
  });
});

describe('toCsv over objects several records hold', () => {
  it('writes a large object held by several records under each column it is under, and a later dotted spelling in its column', () => {
    // Prepare: one object of 70 keys (large enough to be walked once and replayed), held by two
    // records under different columns; the second record also spells one of its columns with a dot.
    const keys = Array.from({ length: 70 }, (_, k) => `k${String(k).padStart(2, '0')}`);
    const shared = Object.fromEntries(keys.map((key, k) => [key, k]));
    const records = [
      { id: 1, p: shared },
      { id: 2, q: shared, 'p.k05': 'dotted' },
      { id: 3, p: shared },
    ];

    // Act
    const csv = toCsv(records, { leading: ['id'] });

    // Assess
    const [header, ...rows] = lines(csv.body);
    expect(header).toBe(['id', ...keys.map((key) => `p.${key}`), ...keys.map((key) => `q.${key}`)].join(','));
    const values = keys.map((_, k) => String(k));
    const none = keys.map(() => '');
    expect(rows).toEqual([
      ['1', ...values, ...none].join(','),
      ['2', ...none.map((cell, k) => (k === 5 ? 'dotted' : cell)), ...values].join(','),
      ['3', ...values, ...none].join(','),
    ]);
  });
});
