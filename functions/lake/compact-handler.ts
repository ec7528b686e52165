import type { Context, ScheduledEvent } from 'aws-lambda';
import { envNames, lakeCompactionEnv, loadConfig, singleTableEnv } from '../shared/config';
import { getProject } from '../shared/db/projects';
import { invocationHandler } from '../shared/invocation';
import { lakeCompaction } from '../shared/lake/compaction';
import { logger } from '../shared/logger';
import type { CompactionOutcome } from './compact';
import { compactLake } from './compact';
import type { DeletionOutcome } from './delete-project';
import { deleteRemovedProjects } from './delete-project';
import { s3LakeStore } from './store';

const config = loadConfig(singleTableEnv.and(lakeCompactionEnv));
const tableName = config[envNames.singleTable];
const store = s3LakeStore(config[envNames.lakeBucket]);
const settings = {
  settleMs: (config[envNames.lakeCompactSettleSeconds] ?? lakeCompaction.settleSeconds) * 1000,
  graceMs: (config[envNames.lakeCompactGraceSeconds] ?? lakeCompaction.graceSeconds) * 1000,
  targetBytes: lakeCompaction.targetBytes,
  largeBytes: lakeCompaction.largeBytes,
};

/**
 * The lake's upkeep, on its schedule (every `lakeCompaction.scheduleMinutes`): first empties the
 * prefixes of deleted projects (delete-project.ts), then compacts every settled partition
 * (compact.ts), stopping `lakeCompaction.reserveSeconds` before its timeout.
 */
export const handler = invocationHandler(
  async (
    _event: ScheduledEvent,
    context: Context,
  ): Promise<{ deletion: DeletionOutcome; compaction: CompactionOutcome }> => {
    const deadline = Date.now() + context.getRemainingTimeInMillis() - lakeCompaction.reserveSeconds * 1000;
    const deletion = await deleteRemovedProjects(
      store,
      async (projectId) => (await getProject(tableName, projectId)) !== undefined,
      deadline,
    );
    const compaction = await compactLake(store, settings, deadline);
    if (deletion.objectsDeleted + compaction.filesWritten + compaction.objectsDeleted > 0)
      logger.info('Lake compacted', { ...deletion, ...compaction });
    return { deletion, compaction };
  },
);
