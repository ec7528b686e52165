import type { Context, ScheduledEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { envNames, eventsTableEnv, loadConfig, singleTableEnv } from '../shared/config';
import { invocationHandler } from '../shared/invocation';
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
export const handler = invocationHandler(
  async (event: SQSEvent | ScheduledEvent, context: Context): Promise<SQSBatchResponse | undefined> => {
    if ('Records' in event)
      return exportRecords(event.Records, singleTable, new Date(), context.getRemainingTimeInMillis());
    await runPluginJobs(singleTable, eventsTable);
    return undefined;
  },
);
