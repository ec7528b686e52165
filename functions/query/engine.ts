import type { AthenaTarget } from './athena';
import { athenaPaths } from './athena';
import type { QueryContext, QueryPlan } from './plan';
import type { LakeFile } from './lake-files';
import { runOnLake } from './lake-run';
import { queryBudget } from './settings';

/**
 * Which engine answers a query (docs/query-api.md): `duckdb` always runs in the function over the
 * files it downloads (a query past the byte budget is a 400); `athena` sends every HogQL query to
 * Athena; `auto` (the stack's default) runs DuckDB while the query's files fit the budget and Athena
 * beyond it. Insights run on DuckDB whatever the setting. The local server has no Athena: DuckDB.
 */
export type QueryEngine = 'duckdb' | 'athena' | 'auto';
export const queryEngines: readonly QueryEngine[] = ['duckdb', 'athena', 'auto'];

export interface EngineSettings {
  readonly lakeBucket: string;
  readonly maxLakeBytes: number;
  readonly engine: QueryEngine;
  /** Where Athena runs; absent under `duckdb`. */
  readonly athena?: AthenaTarget;
}

/** Runs `plan` over `files` (the project's, listed by `lakeFilesOf`) on the engine `settings` choose. */
export async function runPlan(
  plan: QueryPlan,
  context: QueryContext,
  settings: EngineSettings,
  files: readonly LakeFile[],
): Promise<Record<string, unknown>> {
  const { athena } = settings;
  // Athena reads only the files DuckDB would (athena.ts): never a compacted row twice.
  const onAthena =
    athena && plan.athena
      ? () =>
          plan.athena!({ ...athena, paths: athenaPaths(settings.lakeBucket, files) }, queryBudget.timeoutMs)
      : undefined;
  if (onAthena && settings.engine === 'athena') return onAthena();
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  if (onAthena && settings.engine === 'auto' && bytes > settings.maxLakeBytes) return onAthena();
  return runOnLake(plan, settings.lakeBucket, files, settings.maxLakeBytes, context.timezone);
}
