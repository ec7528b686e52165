import * as z from 'zod';
import type { PrivateApiConfig } from '../shared/config';
import { envNames, loadConfig, singleTableEnv } from '../shared/config';
import { lakeTableName } from '../shared/lake/layout';
import type { EngineSettings } from './engine';
import { queryEngines } from './engine';
import { queryBudget } from './settings';

/**
 * The query function's configuration: the single table (callers, the cache, async statuses), the
 * lake, the engine settings and the queue of async runs.
 */
export interface QueryConfig extends PrivateApiConfig, EngineSettings {
  readonly queryRunsQueueUrl: string;
}

const queryEnv = singleTableEnv
  .and(
    z.object({
      [envNames.lakeBucket]: z.string().min(1),
      [envNames.queryRunsQueueUrl]: z.url(),
      [envNames.queryMaxLakeBytes]: z.coerce.number().int().positive().default(queryBudget.maxLakeBytes),
      [envNames.queryEngine]: z.enum(queryEngines).default('duckdb'),
      [envNames.athenaWorkGroup]: z.string().min(1).optional(),
      [envNames.lakeDatabase]: z.string().min(1).optional(),
    }),
  )
  .refine(
    (env) =>
      env[envNames.queryEngine] === 'duckdb' ||
      (env[envNames.athenaWorkGroup] !== undefined && env[envNames.lakeDatabase] !== undefined),
    {
      message: `${envNames.queryEngine} other than duckdb needs ${envNames.athenaWorkGroup} and ${envNames.lakeDatabase}`,
    },
  );

export function queryConfig(env: NodeJS.ProcessEnv = process.env): QueryConfig {
  const config = loadConfig(queryEnv, env);
  const engine = config[envNames.queryEngine];
  const workGroup = config[envNames.athenaWorkGroup];
  const database = config[envNames.lakeDatabase];
  return {
    singleTable: config[envNames.singleTable],
    lakeBucket: config[envNames.lakeBucket],
    queryRunsQueueUrl: config[envNames.queryRunsQueueUrl],
    maxLakeBytes: config[envNames.queryMaxLakeBytes],
    engine,
    ...(engine !== 'duckdb' && workGroup && database
      ? { athena: { workGroup, database, table: lakeTableName } }
      : {}),
  };
}
