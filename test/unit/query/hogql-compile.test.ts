import { checkBounds } from '../../../functions/shared/query/hogql/ast';
import { compileHogQL } from '../../../functions/shared/query/hogql/compile';
import { hogqlRejection } from '../../helpers/hogql';

/** PostHog's parser module, as the compiler requires it: its parsers count the texts they parse. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const parserModule = require('@posthog/hogql-parser') as { default: () => Promise<Record<string, unknown>> };
let parses = 0;
const createParser = parserModule.default;
parserModule.default = async () => {
  const parser = await createParser();
  return Object.fromEntries(
    Object.entries(parser).map(([name, entry]) => [
      name,
      typeof entry === 'function' && name.startsWith('parse')
        ? (...args: unknown[]) => {
            parses++;
            return (entry as (...args: unknown[]) => unknown).apply(parser, args);
          }
        : entry,
    ]),
  );
};

const compile = (text: string) => compileHogQL(text, { projectId: 7 });

const refused = (text: string) => hogqlRejection(compile(text));

/** Every way the compiled SQL reads the lake: the project-filtered relation, nothing else. */
const lakeReads = (sql: string): string[] => sql.match(/FROM events\b[^)]*/g) ?? [];

describe('HogQL compiler', () => {
  it('compiles fields, properties, aggregates and clauses to DuckDB SQL with the project filter', async () => {
    const compiled = await compile(
      "select event, count() as c, properties.$browser, person.properties.email, properties.a.b, uniq(distinct_id) from events where timestamp > now() - interval 7 day and event in ('a', 'b') group by event, $browser, email, a__b having c > 1 order by c desc limit 10 offset 2",
    );
    expect(compiled.columns).toEqual(['event', 'c', '$browser', 'email', 'a__b', 'uniq(distinct_id)']);
    expect(compiled.sql).toContain('"mat_browser" AS "$browser"');
    expect(compiled.sql).toContain(`json_extract_string("__person_properties", '$."email"') AS "email"`);
    expect(compiled.sql).toContain(`json_extract_string("__properties_stored", '$."a"."b"') AS "a__b"`);
    expect(compiled.sql).toContain('count(DISTINCT "distinct_id")');
    expect(compiled.sql).toContain(`("event" IN ('a', 'b'))`);
    expect(compiled.sql).toMatch(/ HAVING \("c" > 1\) ORDER BY "c" DESC LIMIT 10 OFFSET 2$/);
    expect(lakeReads(compiled.sql)).toEqual(['FROM events WHERE project_id = 7']);
    expect(compiled).toMatchObject({ paginated: false, limit: null, offset: null });
  });

  it('returns 100 rows (asking for 101) without a LIMIT, clamps a LIMIT to 50,000, leaves sub-queries alone', async () => {
    const paged = await compile('select event from events offset 5');
    expect(paged.sql).toMatch(/ LIMIT 101 OFFSET 5$/);
    expect(paged).toMatchObject({ paginated: true, limit: 100, offset: 5 });
    const clamped = await compile('select x from (select event as x from events limit 70000) limit 60000');
    expect(clamped.sql).toMatch(/LIMIT 70000\) AS "__subquery" LIMIT 50000$/);
    expect(lakeReads(clamped.sql)).toEqual(['FROM events WHERE project_id = 7']);
  });

  it('filters every read of events by the project, in sub-queries and IN lists too', async () => {
    const { sql } = await compile(
      'select count() from events where distinct_id in (select distinct_id from events e where e.event = 1) and 1 < (select count() from events)',
    );
    expect(lakeReads(sql)).toEqual(Array(3).fill('FROM events WHERE project_id = 7'));
  });

  it('translates the common functions', async () => {
    const { sql } = await compile(
      "select countIf(event = 'a'), toStartOfDay(timestamp), toStartOfWeek(timestamp), toStartOfMonth(timestamp), toDate(timestamp), dateDiff('day', timestamp, now()), JSONExtractString(properties, 'a', 'b'), JSONExtractInt(properties, 'n'), coalesce(properties.x, 'none'), if(event ilike '%A%', 1, 0), today(), properties.$x is null, quantile(0.9)(JSONExtractFloat(properties, 'v')) from events",
    );
    expect(sql).toContain(`count(*) FILTER (WHERE ("event" = 'a'))`);
    expect(sql).toContain(`date_trunc('day', "timestamp")`);
    expect(sql).toContain(`CAST(date_trunc('week', "timestamp" + INTERVAL 1 DAY) - INTERVAL 1 DAY AS DATE)`);
    expect(sql).toContain(`date_diff('day', "timestamp", now())`);
    expect(sql).toContain(`json_extract_string("properties", '$."a"."b"')`);
    expect(sql).toContain(`TRY_CAST(json_extract_string("properties", '$."n"') AS BIGINT)`);
    expect(sql).toContain(`CASE WHEN ("event" ILIKE '%A%') THEN 1 ELSE 0 END`);
    expect(sql).toContain(`(json_extract_string("__properties_stored", '$."$x"') IS NULL)`);
    expect(sql).toContain('quantile_cont(');
  });

  it.each([
    ["select * from read_csv('/etc/passwd')", 'hogql_unsupported', 'Table functions'],
    [
      "select * from read_parquet('s3://bucket/events/project_id=8/*.parquet')",
      'hogql_unsupported',
      'Table functions',
    ],
    ['select * from system.tables', 'hogql_unknown_name', 'Unknown table: system.tables'],
    ['select * from persons', 'hogql_unknown_name', 'Unknown table: persons'],
    ['select * from duckdb_settings', 'hogql_unknown_name', 'Unknown table: duckdb_settings'],
    ["select read_csv('/etc/passwd')", 'hogql_unsupported', 'Function read_csv'],
    [
      "select count() from events where event in (select * from glob('/*'))",
      'hogql_unsupported',
      'Table functions',
    ],
    ["select file('/etc/passwd')", 'hogql_unsupported', 'Function file'],
    ["select s3('https://x')", 'hogql_unsupported', 'Function s3'],
    ["select getenv('HOME')", 'hogql_unsupported', 'Function getenv'],
    ["select current_setting('allowed_paths')", 'hogql_unsupported', 'Function current_setting'],
    ["select query('select 1')", 'hogql_unsupported', 'Function query'],
    ['select count() from events where project_id = 8', 'hogql_unknown_name', 'project_id'],
    ['select events.project_id from events', 'hogql_unknown_name', 'project_id'],
    ['select mat_browser from events', 'hogql_unknown_name', 'mat_browser'],
    ['select __person_properties from events', 'hogql_unknown_name', '__person_properties'],
    ['select count() from events e join events f on e.uuid = f.uuid', 'hogql_unsupported', 'JOIN'],
    ['select 1 union all select 2', 'hogql_unsupported', 'UNION'],
    ['with x as (select 1) select * from x', 'hogql_unsupported', 'SelectQuery.ctes'],
    ['select 1 from events limit 1 by event', 'hogql_unsupported', 'SelectQuery.limit_by'],
    ['select 1 from events sample 0.1', 'hogql_unsupported', 'sample'],
    ['select arrayMap(x -> x, [1])', 'hogql_unsupported', 'Lambda'],
    ['select {placeholder}', 'hogql_unsupported', 'Placeholder'],
    ['select 1 from events limit 1 + 1', 'hogql_unsupported', 'LIMIT'],
    ['select cast(event as blob) from events', 'hogql_unsupported', 'Cast to blob'],
    [
      'select dateDiff(event, timestamp, now()) from events',
      'hogql_invalid_arguments',
      'unit must be a constant',
    ],
    ["select dateDiff('millennium', timestamp, now()) from events", 'hogql_invalid_arguments', 'millennium'],
    ['select toString() from events', 'hogql_invalid_arguments', 'toString takes 1'],
    ['select constructor(1)', 'hogql_unsupported', 'Function constructor'],
    ['select from events', 'hogql_syntax_error', 'Syntax error'],
  ])('refuses %s', async (text, code, detail) => {
    const error = await refused(text);
    expect(error.toBody()).toMatchObject({ type: 'validation_error', code, attr: 'query' });
    expect(error.statusCode).toBe(400);
    expect(error.detail).toContain(detail);
  });

  it('keeps quoting tricks inside literals and identifiers', async () => {
    const { sql, columns } = await compile(
      "select 'x''); select * from read_csv(''/etc/passwd'') --' as `a\"b`, properties.`k'\"); drop` from events",
    );
    expect(sql).toContain(`'x''); select * from read_csv(''/etc/passwd'') --' AS "a""b"`);
    expect(sql).toContain(`json_extract_string("__properties_stored", '$."k''\\"); drop"')`);
    expect(columns).toEqual(['a"b', `k'"); drop`]);
    expect(lakeReads(sql)).toEqual(['FROM events WHERE project_id = 7']);
  });

  it('refuses brackets nested deeper than the parser parses fast, before parsing', async () => {
    // Eight nested calls took the parser 52 s on a loaded machine: refused at once instead.
    await compile('select 1');
    const parsesBefore = parses;
    expect(parsesBefore).toBeGreaterThan(0);
    const deep = await refused(`select ${'coalesce('.repeat(8)}1${', 2)'.repeat(8)}`);
    expect(deep).toMatchObject({
      code: 'hogql_too_large',
      detail: 'Query nests brackets deeper than 5 levels',
    });
    expect((await refused(`select ${'['.repeat(6)}1${']'.repeat(6)}`)).code).toBe('hogql_too_large');
    expect(parses).toBe(parsesBefore);
    // Five levels pass; brackets inside strings, quoted names and comments do not count.
    await compile(`select ${'coalesce('.repeat(4)}1${', 2)'.repeat(4)} from events`);
    await compile("select '((((((\\'((((((' as `((((((`, \"((((((\" -- ((((((\n from events /* (((((( */");
  });

  it('bounds the query text, the AST depth and the node count', async () => {
    expect((await refused(`select ${'1'.repeat(4_001)}`)).detail).toContain('longer than 4000');
    expect((await refused(`select ${Array(80).fill('1').join(' + ')}`)).detail).toContain('deeper than 64');
    // The parser takes milliseconds per character, so the node bound is checked on a built AST.
    const constants = Array.from({ length: 5_001 }, () => ({ node: 'Constant', value: 1 }));
    expect(() => checkBounds({ node: 'SelectQuery', select: constants })).toThrow('more than 5000 nodes');
    expect(() => checkBounds({ node: 'SelectQuery', select: constants.slice(2) })).not.toThrow();
  });
});
