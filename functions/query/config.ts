import * as z from 'zod';
import type { PrivateApiConfig } from '../shared/config';
import { envNames, loadConfig, singleTableEnv } from '../shared/config';
import { queryBudget } from './settings';

/** The query function's configuration: the single table (callers), the lake bucket and its byte budget. */
export interface QueryConfig extends PrivateApiConfig {
  readonly lakeBucket: string;
  readonly maxLakeBytes: number;
}

const queryEnv = singleTableEnv.and(
  z.object({
    [envNames.lakeBucket]: z.string().min(1),
    [envNames.queryMaxLakeBytes]: z.coerce.number().int().positive().default(queryBudget.maxLakeBytes),
  }),
);

export function queryConfig(env: NodeJS.ProcessEnv = process.env): QueryConfig {
  const config = loadConfig(queryEnv, env);
  return {
    singleTable: config[envNames.singleTable],
    lakeBucket: config[envNames.lakeBucket],
    maxLakeBytes: config[envNames.queryMaxLakeBytes],
  };
}
