import type { CachedQuery } from '../shared/db/query-cache';
import { getPersonsByDistinctIds } from '../shared/db/persons';
import type { QueryConfig } from './config';
import { runPlan } from './engine';
import type { LakeFile } from './lake-files';
import { lakeFilesOf, lakeStateOf } from './lake-files';
import type { QueryContext, QueryPlan } from './plan';
import { planQuery } from './plan';
import type { QueryNode } from './request';
import { cacheKeyOf } from './response';

/**
 * What a query request and an async run share: the query planned (a 400 before any S3 call), its lake
 * files listed and its cache key, then computed on the engine the settings choose.
 */

/** A query planned, with the files it reads and its cache key (project, query, timezone, lake state). */
export interface PreparedQuery {
  readonly plan: QueryPlan;
  readonly files: readonly LakeFile[];
  readonly cacheKey: string;
}

/** What every kind runs with, for the project `projectId` in its `timezone`, at `now`. */
export function queryContextOf(
  settings: QueryConfig,
  project: { readonly id: number; readonly timezone: string },
  now: Date,
): QueryContext {
  return {
    projectId: project.id,
    timezone: project.timezone,
    now,
    personsOf: (ids: readonly string[]) => getPersonsByDistinctIds(settings.singleTable, project.id, ids),
  };
}

export async function prepareQuery(
  node: QueryNode,
  context: QueryContext,
  settings: QueryConfig,
): Promise<PreparedQuery> {
  const plan = await planQuery(node, context);
  const files = await lakeFilesOf(settings.lakeBucket, context.projectId, plan.dates);
  const cacheKey = cacheKeyOf(context.projectId, [node, context.timezone, lakeStateOf(files)]);
  return { plan, files, cacheKey };
}

/** Runs the prepared query: its result as the cache keeps it (the caller caches it under its key). */
export async function computeQuery(
  prepared: PreparedQuery,
  context: QueryContext,
  settings: QueryConfig,
): Promise<CachedQuery> {
  const result = await runPlan(prepared.plan, context, settings, prepared.files);
  return { result, hogql: prepared.plan.hogql, lastRefresh: context.now };
}
