import { parseHogQL } from '../../../functions/shared/query/hogql/compile';
import { hogqlPartitions } from '../../../functions/shared/query/hogql/date-bounds';

/** The first and last partition a query's text names, or undefined for every partition. */
async function range(text: string): Promise<[string, string] | [] | undefined> {
  const dates = hogqlPartitions(await parseHogQL(text));
  if (dates === undefined || dates.length === 0) return dates === undefined ? undefined : [];
  return [dates[0]!, dates.at(-1)!];
}

describe('the partitions a HogQL query can read', () => {
  it('takes constant bounds on timestamp in the WHERE, each day widened by two', async () => {
    expect(
      await range(
        "select count() from events where timestamp >= '2024-03-04' and timestamp < '2024-03-06 12:00:00'",
      ),
    ).toEqual(['2024-03-02', '2024-03-08']);
    // Either side, BETWEEN, a table alias, nested ANDs; the tightest bounds win.
    expect(
      await range(
        "select event from events e where '2024-03-06' > e.timestamp and (event = 'a' and timestamp between '2024-03-01' and '2024-03-10') and events.timestamp >= '2024-03-03T10:00:00+05:00'",
      ),
    ).toEqual(['2024-03-01', '2024-03-08']);
    const dates = hogqlPartitions(
      await parseHogQL("select 1 from events where timestamp > '2024-02-28' and timestamp <= '2024-03-01'"),
    );
    expect(dates).toEqual([
      '2024-02-26',
      '2024-02-27',
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
      '2024-03-02',
      '2024-03-03',
    ]);
  });

  it('lists every partition when the bounds do not limit every row the query reads', async () => {
    for (const text of [
      "select count() from events where timestamp >= '2024-03-04'",
      "select count() from events where timestamp < '2024-03-04'",
      "select count() from events where timestamp >= '2024-03-04' or timestamp < '2024-03-06'",
      "select count() from events where not (timestamp >= '2024-03-04' and timestamp < '2024-03-06')",
      "select count() from events where timestamp not between '2024-03-04' and '2024-03-06'",
      'select count() from events where timestamp >= now() - interval 1 day and timestamp < now()',
      "select count() from events where toDate(timestamp) >= '2024-03-04' and toDate(timestamp) < '2024-03-06'",
      "select count() from events where created_at >= '2024-03-04' and created_at < '2024-03-06'",
      // A sub-query reads events the outer bounds do not limit.
      "select count() from events where timestamp >= '2024-03-04' and timestamp < '2024-03-06' and distinct_id in (select distinct_id from events)",
      "select count() from (select timestamp from events) where timestamp >= '2024-03-04' and timestamp < '2024-03-06'",
      // The WHERE's `timestamp` is then the select alias.
      "select toStartOfDay(timestamp) as timestamp from events where timestamp >= '2024-03-04' and timestamp < '2024-03-06'",
      "select count() from events where timestamp >= 'yesterday' and timestamp < '2024-03-06'",
      "select count() from events where timestamp >= '2000-01-01' and timestamp < '2030-01-01'",
    ])
      expect({ text, range: await range(text) }).toEqual({ text, range: undefined });
  });

  it('names no partition for bounds that cross', async () => {
    expect(
      await range("select count() from events where timestamp >= '2024-03-10' and timestamp < '2024-03-01'"),
    ).toEqual([]);
  });
});
