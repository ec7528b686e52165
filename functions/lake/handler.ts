import type { Context, ScheduledEvent } from 'aws-lambda';
import { envNames, eventsTableEnv, lakeEnv, loadConfig, singleTableEnv } from '../shared/config';
import { invocationHandler } from '../shared/invocation';
import { logger } from '../shared/logger';
import { lakeFlush, lakeQueue } from '../shared/queue/definitions';
import type { FlushOutcome } from './flush';
import { drainLake } from './flush';

const config = loadConfig(singleTableEnv.and(eventsTableEnv).and(lakeEnv));
const settings = {
  queueUrl: config[envNames.lakeQueueUrl],
  bucket: config[envNames.lakeBucket],
  tableName: config[envNames.singleTable],
  eventsTable: config[envNames.eventsTable],
  flushEvents: config[envNames.lakeFlushEvents] ?? lakeFlush.flushEvents,
  visibilitySeconds: config[envNames.lakeVisibilitySeconds] ?? lakeQueue.visibilityTimeoutSeconds,
  settleSeconds: config[envNames.lakeSettleSeconds] ?? lakeQueue.settleSeconds,
};

/**
 * The lake function, on its schedule (every `lakeFlush.scheduleMinutes`): drains the lake queue into
 * Parquet files (flush.ts), stopping `lakeFlush.reserveSeconds` before its timeout.
 */
export const handler = invocationHandler(
  async (_event: ScheduledEvent, context: Context): Promise<FlushOutcome> => {
    const outcome = await drainLake(
      settings,
      Date.now() + context.getRemainingTimeInMillis() - lakeFlush.reserveSeconds * 1000,
    );
    if (outcome.written + outcome.failed > 0) logger.info('Lake flushed', { ...outcome });
    return outcome;
  },
);
