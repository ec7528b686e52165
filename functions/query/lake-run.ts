import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withLakeDatabase, withTimeout } from './database';
import type { LakeFile } from './lake-files';
import { downloadLakeFiles } from './lake-files';
import type { QueryPlan } from './plan';
import { queryBudget } from './settings';

/**
 * Runs `plan` over `files` (the project's, listed by `lakeFilesOf`): downloads them into a directory
 * of its own under /tmp (within `maxBytes`), opens the locked database over them, runs the plan
 * within the time budget, and removes the directory whatever happens.
 */
export async function runOnLake(
  plan: QueryPlan,
  bucket: string,
  files: readonly LakeFile[],
  maxBytes: number,
  timezone: string,
): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'flock-query-'));
  try {
    const paths = await downloadLakeFiles(bucket, files, dir, maxBytes, queryBudget.downloadConcurrency);
    return await withLakeDatabase(dir, paths, timezone, (connection) =>
      withTimeout(connection, queryBudget.timeoutMs, () => plan.run(connection)),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
