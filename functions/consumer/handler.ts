import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import {
  envNames,
  eventsTableEnv,
  exportsQueueEnv,
  geoipDatabaseEnv,
  lakeQueueOptionalEnv,
  loadConfig,
  singleTableEnv,
} from '../shared/config';
import { invocationHandler } from '../shared/invocation';
import { failWholeBatchIfEveryRecordFailed } from '../shared/queue/batch-failure';
import { invocationDeadline, watchDeadline } from './deadline-watch';
import { geoIpLocatorFor } from './geoip/locator';
import { ingestRecords, newConsumerMemory } from './ingest';

const config = loadConfig(
  eventsTableEnv.and(singleTableEnv).and(geoipDatabaseEnv).and(exportsQueueEnv).and(lakeQueueOptionalEnv),
);
const tables = {
  eventsTable: config[envNames.eventsTable],
  singleTable: config[envNames.singleTable],
  exportsQueueUrl: config[envNames.exportsQueueUrl],
  lakeQueueUrl: config[envNames.lakeQueueUrl],
  lakeSettleSeconds: config[envNames.lakeSettleSeconds],
};
// The GeoIP database is read on its first lookup, not here (geoip/locator.ts).
const memory = newConsumerMemory(geoIpLocatorFor(config[envNames.geoipDatabase]));

/**
 * The ingest consumer (SQS event source with partial batch responses): see ingest.ts. A batch whose
 * every record failed (DynamoDB down, say) throws instead (batch-failure.ts), so Lambda counts an
 * error and backs off. An invocation still running 2 s before its deadline logs which stages were
 * running (deadline-watch.ts). Every log line of the invocation carries its request id; its metrics are
 * flushed (one EMF line) when it ends (invocation.ts).
 */
export const handler = invocationHandler(async (event: SQSEvent, context): Promise<SQSBatchResponse> => {
  const stopWatch = watchDeadline(context, event.Records.length);
  try {
    const deadline = invocationDeadline(context);
    const response = await ingestRecords(event.Records, tables, memory, new Date(), deadline);
    return failWholeBatchIfEveryRecordFailed(event.Records.length, response);
  } finally {
    stopWatch();
  }
});
