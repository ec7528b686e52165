import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { envNames, eventsTableEnv, loadConfig, singleTableEnv } from '../shared/config';
import { ingestRecords, newConsumerMemory } from './ingest';

const config = loadConfig(eventsTableEnv.and(singleTableEnv));
const tables = { eventsTable: config[envNames.eventsTable], singleTable: config[envNames.singleTable] };
const memory = newConsumerMemory();

/** The ingest consumer (SQS event source with partial batch responses): see ingest.ts. */
export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  return ingestRecords(event.Records, tables, memory);
}
