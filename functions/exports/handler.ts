import type { Context, ScheduledEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { envNames, eventsTableEnv, loadConfig, singleTableEnv } from '../shared/config';
import { logger } from '../shared/logger';
import { flushMetrics } from '../shared/metrics';
import { runPluginJobs } from './historical';
import { exportRecords } from './live';

const config = loadConfig(singleTableEnv.and(eventsTableEnv));
const singleTable = config[envNames.singleTable];
const eventsTable = config[envNames.eventsTable];

/**
 * The exports function. From the exports queue (SQS event source, partial batch responses): uploads
 * the events the consumer handed over to each project's S3 Export destination (live.ts). From the
 * schedule: runs pending plugin jobs, the historical export (historical.ts).
 */
export async function handler(
  event: SQSEvent | ScheduledEvent,
  context?: Context,
): Promise<SQSBatchResponse | undefined> {
  if (context) logger.addContext(context);
  try {
    if ('Records' in event)
      return await exportRecords(event.Records, singleTable, new Date(), context?.getRemainingTimeInMillis());
    await runPluginJobs(singleTable, eventsTable);
    return undefined;
  } finally {
    flushMetrics();
    logger.resetKeys();
  }
}
