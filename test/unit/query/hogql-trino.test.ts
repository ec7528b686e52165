import { compileHogQL } from '../../../functions/shared/query/hogql/compile';
import type { TrinoTarget } from '../../../functions/shared/query/hogql/trino';
import { trinoDialect, trinoJsonPath } from '../../../functions/shared/query/hogql/trino';
import { hogqlRejection } from '../../helpers/hogql';

const target: TrinoTarget = {
  database: 'flock_lake',
  table: 'events',
  timezone: 'Europe/Paris',
  dates: { from: '2026-11-01', to: '2026-11-27' },
};

const compile = (text: string, options: Partial<TrinoTarget> = {}) =>
  compileHogQL(text, { projectId: 7, dialect: trinoDialect({ ...target, ...options }) });

const refused = (text: string) => hogqlRejection(compile(text));

/** Every read of the lake's table in the SQL, up to the end of its WHERE. */
const tableReads = (sql: string): string[] => sql.match(/FROM "flock_lake"\."events" WHERE [^)]*/g) ?? [];

describe('HogQL compiled for Athena (Trino)', () => {
  it('reads the Glue table through the project and date partitions only, in every sub-query', async () => {
    const compiled = await compile(
      "select event, count() from (select event from events where event = 'a') group by event",
    );
    expect(tableReads(compiled.sql)).toEqual([
      `FROM "flock_lake"."events" WHERE "project_id" = 7 AND "date" BETWEEN '2026-11-01' AND '2026-11-27'`,
    ]);
    const undated = await compile('select count() from events', { dates: undefined });
    expect(tableReads(undated.sql)).toEqual([`FROM "flock_lake"."events" WHERE "project_id" = 7`]);
  });

  it('reads only the files it is given (the listing rule), in every sub-query, and none of an empty list', async () => {
    const paths = [
      's3://lake/events/project_id=7/date=2026-11-02/c-20261102T001600Z-ab12-0.parquet',
      "s3://lake/events/project_id=7/date=2026-11-03/20261103T120000Z-o'k.parquet",
    ];
    const compiled = await compile(
      "select event, count() from (select event from events where event = 'a') group by event",
      { paths },
    );
    expect(tableReads(compiled.sql)).toEqual([
      `FROM "flock_lake"."events" WHERE "project_id" = 7 AND "date" BETWEEN '2026-11-01' AND '2026-11-27'` +
        ` AND "$path" IN ('${paths[0]}', 's3://lake/events/project_id=7/date=2026-11-03/20261103T120000Z-o''k.parquet'`,
    ]);
    const none = await compile('select count() from events', { paths: [] });
    expect(tableReads(none.sql)).toEqual([
      `FROM "flock_lake"."events" WHERE "project_id" = 7 AND "date" BETWEEN '2026-11-01' AND '2026-11-27' AND FALSE`,
    ]);
  });

  it('never lets the query name the partitions, another table or a catalog', async () => {
    expect((await refused('select count() from events where project_id = 8')).message).toMatch(
      /Unable to resolve field: project_id/,
    );
    expect((await refused('select * from flock_lake.events')).message).toMatch(/Unknown table/);
    expect((await refused('select * from system.runtime.queries')).message).toMatch(/Unknown table/);
    expect((await refused("select * from events where date = '2020-01-01'")).message).toMatch(
      /Unable to resolve field: date/,
    );
    // Trino's own functions stay outside the allow-list, whatever their name.
    expect((await refused("select json_parse('{}') from events")).message).toMatch(/json_parse/);
  });

  it("reads timestamps in the project's timezone and writes now() and today() in it", async () => {
    const compiled = await compile(
      'select toStartOfDay(timestamp), today() from events where timestamp > now() - interval 7 day',
    );
    expect(compiled.sql).toContain(
      `(with_timezone("timestamp", 'UTC') AT TIME ZONE 'Europe/Paris') AS "timestamp"`,
    );
    expect(compiled.sql).toContain(`date_trunc('day', "timestamp")`);
    expect(compiled.sql).toContain(`CAST((current_timestamp AT TIME ZONE 'Europe/Paris') AS DATE)`);
    expect(compiled.sql).toContain(
      `("timestamp" > ((current_timestamp AT TIME ZONE 'Europe/Paris') - (CAST(7 AS BIGINT) * INTERVAL '1' DAY)))`,
    );
  });

  it('makes a string compared with a DateTime a timestamp literal, and refuses one that is not a date', async () => {
    const local = await compile("select count() from events where timestamp >= '2026-11-02 10:30:00'");
    expect(local.sql).toContain(
      `("timestamp" >= with_timezone(TIMESTAMP '2026-11-02 10:30:00', 'Europe/Paris'))`,
    );
    const dated = await compile(
      "select count() from events where timestamp between '2026-11-02' and '2026-11-03T00:00:00Z'",
    );
    expect(dated.sql).toContain(
      `("timestamp" BETWEEN with_timezone(TIMESTAMP '2026-11-02 00:00:00', 'Europe/Paris') AND (from_iso8601_timestamp('2026-11-03T00:00:00Z') AT TIME ZONE 'Europe/Paris'))`,
    );
    const day = await compile("select count() from events where toDate(timestamp) = '2026-11-02'");
    expect(day.sql).toContain(`(CAST("timestamp" AS DATE) = DATE '2026-11-02')`);
    expect((await refused("select count() from events where timestamp > 'yesterday'")).message).toMatch(
      /Cannot compare a DateTime with "yesterday"/,
    );
    // Calls are matched as the function rules match them: NOW() is now(), a DateTime in the project's timezone.
    for (const text of ["NOW() > '2026-11-02'", "now() > '2026-11-02'"])
      expect((await compile(`select count() from events where ${text}`)).sql).toContain(
        `((current_timestamp AT TIME ZONE 'Europe/Paris') > with_timezone(TIMESTAMP '2026-11-02 00:00:00', 'Europe/Paris'))`,
      );
    // Strings compared with strings stay strings.
    expect((await compile("select count() from events where event = '2026-11-02'")).sql).toContain(
      `("event" = '2026-11-02')`,
    );
  });

  it('extracts properties with quoted JSON paths, escaping what would end the key or the literal', async () => {
    const compiled = await compile(
      'select properties.`a"b`, properties.`it\'s`, properties.`back\\\\slash`, person.properties.email from events',
    );
    expect(compiled.sql).toContain(`json_extract_scalar("__properties_stored", '$["a\\"b"]')`);
    expect(compiled.sql).toContain(`json_extract_scalar("__properties_stored", '$["it''s"]')`);
    expect(compiled.sql).toContain(`json_extract_scalar("__properties_stored", '$["back\\\\slash"]')`);
    expect(compiled.sql).toContain(`json_extract_scalar("__person_properties", '$["email"]')`);
    expect(trinoJsonPath(['$browser', 0, ']["x'])).toBe('$["$browser"][0]["][\\"x"]');
    // A materialised property reads its column.
    expect((await compile('select properties.$browser from events')).sql).toContain(
      '"mat_browser" AS "$browser"',
    );
  });

  it('casts a property compared with a number, and spells what Trino spells differently', async () => {
    const compiled = await compile(
      "select median(toFloat(properties.price)), quantile(0.9)(toFloat(properties.price)), dateDiff('day', min(timestamp), max(timestamp)), concat(event, 1), toStartOfWeek(timestamp), JSONExtractInt(properties, 'a', 2) from events where properties.price > 10 and event ilike '%Page%' and event not ilike 'x%'",
    );
    expect(compiled.sql).toContain(
      `(TRY_CAST(json_extract_scalar("__properties_stored", '$["price"]') AS DOUBLE) > 10)`,
    );
    expect(compiled.sql).toContain('approx_percentile(TRY_CAST(');
    expect(compiled.sql).toContain(', 0.9)');
    expect(compiled.sql).toContain(
      `date_diff('day', date_trunc('day', min("timestamp")), date_trunc('day', max("timestamp")))`,
    );
    expect(compiled.sql).toContain(`concat(CAST("event" AS VARCHAR), CAST(1 AS VARCHAR))`);
    expect(compiled.sql).toContain(
      `CAST(date_add('day', -1, date_trunc('week', date_add('day', 1, "timestamp"))) AS DATE)`,
    );
    expect(compiled.sql).toContain(`TRY_CAST(json_extract_scalar("properties", '$["a"][1]') AS BIGINT)`);
    expect(compiled.sql).toContain(`(lower("event") LIKE lower('%Page%'))`);
    expect(compiled.sql).toContain(`(NOT (lower("event") LIKE lower('x%')))`);
    expect(compiled.sql).not.toMatch(/ILIKE|quantile_cont|json_extract_string/);
  });

  it('writes OFFSET before LIMIT, as Trino requires', async () => {
    expect((await compile('select event from events offset 5')).sql).toMatch(/ OFFSET 5 LIMIT 101$/);
    expect((await compile('select event from events limit 10 offset 2')).sql).toMatch(/ OFFSET 2 LIMIT 10$/);
    expect((await compile('select event from events limit 90000')).sql).toMatch(/ LIMIT 50000$/);
  });
});
