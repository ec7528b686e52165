import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import type { EngineSettings } from '../../../../functions/query/engine';
import { runPlan } from '../../../../functions/query/engine';
import type { LakeFile } from '../../../../functions/query/lake-files';
import { LakeBudgetError } from '../../../../functions/query/lake-files';
import type { QueryPlan } from '../../../../functions/query/plan';

const s3 = mockClient(S3Client);
beforeEach(() => s3.reset());

const context = {
  projectId: 7,
  timezone: 'UTC',
  now: new Date('2026-11-27T00:00:00Z'),
  personsOf: async () => new Map(),
};
const athena = { workGroup: 'wg', database: 'db', table: 'events' };
const settings = (engine: EngineSettings['engine']): EngineSettings => ({
  lakeBucket: 'lake',
  maxLakeBytes: 100,
  engine,
  ...(engine === 'duckdb' ? {} : { athena }),
});

/** A plan that says which engine ran it; `athena: false` for a kind that runs on DuckDB only. */
function plan(options: { athena: boolean }): QueryPlan & { ran: string[] } {
  const ran: string[] = [];
  return {
    ran,
    hogql: null,
    run: async () => (ran.push('duckdb'), { engine: 'duckdb' }),
    ...(options.athena
      ? { athena: async (target) => (ran.push(`athena ${target.workGroup}`), { engine: 'athena' }) }
      : {}),
  };
}

/** The project's lake: one file of `size` bytes, or none when `size` is 0. */
const lakeOf = (size: number): LakeFile[] =>
  size === 0 ? [] : [{ key: 'events/project_id=7/date=2026-11-01/a.parquet', size, etag: '"a"' }];

describe('the engine a query runs on', () => {
  it('auto: DuckDB while the files fit the budget, Athena beyond it', async () => {
    const small = plan({ athena: true });
    expect(await runPlan(small, context, settings('auto'), lakeOf(0))).toEqual({ engine: 'duckdb' });
    const large = plan({ athena: true });
    expect(await runPlan(large, context, settings('auto'), lakeOf(101))).toEqual({ engine: 'athena' });
    expect([small.ran, large.ran]).toEqual([['duckdb'], ['athena wg']]);
  });

  it('athena: every HogQL query, whatever its files', async () => {
    const hogql = plan({ athena: true });
    expect(await runPlan(hogql, context, settings('athena'), lakeOf(0))).toEqual({ engine: 'athena' });
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });

  it('an insight runs on DuckDB whatever the setting, and past the budget it is a 400', async () => {
    expect(await runPlan(plan({ athena: false }), context, settings('athena'), lakeOf(0))).toEqual({
      engine: 'duckdb',
    });
    await expect(
      runPlan(plan({ athena: false }), context, settings('auto'), lakeOf(101)),
    ).rejects.toBeInstanceOf(LakeBudgetError);
  });

  it('duckdb (and the local server): never Athena, past the budget a 400', async () => {
    const hogql = plan({ athena: true });
    await expect(runPlan(hogql, context, settings('duckdb'), lakeOf(101))).rejects.toBeInstanceOf(
      LakeBudgetError,
    );
    expect(hogql.ran).toEqual([]);
    expect(s3.commandCalls(GetObjectCommand)).toHaveLength(0);
  });
});
