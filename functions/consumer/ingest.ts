import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { recordFailedAttempts } from '../shared/db/failures';
import { logger } from '../shared/logger';
import { countDropped, countMetric, countPerProject, metricNames } from '../shared/metrics';
import { ingestQueue } from '../shared/queue/definitions';
import { recordDefinitions, SeenTodayCache } from './definitions';
import type { StageFailures } from '../shared/stage-failures';
import { failMessages, mergeFailures } from '../shared/stage-failures';
import type { GeoIpLocator } from '../shared/domain/plugins/types';
import { bundledLocator } from './geoip/locator';
import { handToExports } from './exports';
import { PluginConfigs } from './plugin-configs';
import { PluginBatch } from './plugins';
import { GroupTypeRegistry } from './group-types';
import { storeGroups } from './groups';
import { IngestedProjects } from './ingested';
import { PropertyValueSampler } from './property-values';
import { processPersons } from './persons';
import { parseRecord, processMessage } from './records';
import type { MessageEvents } from './store';
import { storeEvents } from './store';
import { receiveCountOf } from '../shared/queue/receive-count';

export interface ConsumerTables {
  readonly eventsTable: string;
  readonly singleTable: string;
  /** Where stored events of projects with an export config go (exports.ts); unset, none are handed over. */
  readonly exportsQueueUrl?: string;
}

/** What a container remembers between batches: only facts that cannot become false. */
export interface ConsumerMemory {
  readonly seenToday: SeenTodayCache;
  readonly ingestedProjects: IngestedProjects;
  readonly propertyValues: PropertyValueSampler;
  readonly groupTypes: GroupTypeRegistry;
  /** Each project's enabled plugin configs, re-read every 5 s (a cache, not a fact: see plugin-configs.ts). */
  readonly pluginConfigs: PluginConfigs;
  /** The GeoIP plugin's `meta.geoip`: its database is read on the first lookup, then kept. */
  readonly geoip: GeoIpLocator;
}

export function newConsumerMemory(geoip: GeoIpLocator = bundledLocator()): ConsumerMemory {
  return {
    geoip,
    seenToday: new SeenTodayCache(),
    ingestedProjects: new IngestedProjects(),
    propertyValues: new PropertyValueSampler(),
    groupTypes: new GroupTypeRegistry(),
    pluginConfigs: new PluginConfigs(),
  };
}

/** A message that failed, with the error that stopped it (see failures.ts). */
async function storeOrFail(eventsTable: string, messages: readonly MessageEvents[]): Promise<StageFailures> {
  try {
    return await storeEvents(eventsTable, messages);
  } catch (error) {
    logger.error('Storing the batch failed', { reason: String(error) });
    const failed: StageFailures = new Map();
    failMessages(
      failed,
      messages.map((message) => message.messageId),
      error,
    );
    return failed;
  }
}

/** Where the batch's events went, as metrics (see shared/metrics.ts). */
function countOutcome(
  records: readonly SQSRecord[],
  messages: readonly MessageEvents[],
  failed: StageFailures,
  dropped: number,
): void {
  const stored = new Map<number, number>();
  const seen = new Set<string>();
  let duplicates = 0;
  for (const message of messages) {
    if (failed.has(message.messageId)) continue;
    for (const event of message.events) {
      const key = `${message.projectId}\u0000${event.uuid}`;
      if (seen.has(key)) {
        duplicates++;
        continue;
      }
      seen.add(key);
      stored.set(message.projectId, (stored.get(message.projectId) ?? 0) + 1);
    }
  }
  countMetric(metricNames.eventsStored, seen.size);
  countPerProject(metricNames.eventsStored, stored);
  countMetric(metricNames.eventsDuplicate, duplicates);
  countDropped('invalid', dropped);
  countMetric(metricNames.failedMessages, failed.size);
  countMetric(metricNames.failedBatches, failed.size > 0 ? 1 : 0);
  countMetric(
    metricNames.deadLettered,
    records.filter(
      (record) => failed.has(record.messageId) && receiveCountOf(record) >= ingestQueue.maxReceiveCount,
    ).length,
  );
}

/**
 * One SQS batch → plugins, persons, stored events, definitions and volumes (PostHog's plugin-server
 * `process-event.ts` order), then
 * the hand-off to exports (exports.ts), in that order, each stage only for the messages every earlier stage handled. Every stage is replayable, so a
 * message that fails anywhere is simply reported for SQS to deliver again (after 5 receives it moves
 * to the DLQ); a record that can never be valid is logged and dropped.
 */
export async function ingestRecords(
  records: readonly SQSRecord[],
  tables: ConsumerTables,
  memory: ConsumerMemory,
  now: Date = new Date(),
): Promise<SQSBatchResponse> {
  const messages: MessageEvents[] = [];
  const pluginFailures: StageFailures = new Map();
  const plugins = new PluginBatch(memory.pluginConfigs, tables.singleTable, now, memory.geoip);
  let dropped = 0;
  for (const record of records) {
    const message = parseRecord(record);
    if (!message) {
      dropped++;
      continue;
    }
    let transformed;
    try {
      transformed = await plugins.transform(message);
    } catch (error) {
      logger.error('Running plugins failed', { messageId: record.messageId, reason: String(error) });
      failMessages(pluginFailures, [record.messageId], error);
      continue;
    }
    const processed = processMessage(record.messageId, message, transformed);
    // Events the plugins dropped are counted by the plugin stage, with their own reason.
    dropped += transformed.length - processed.events.length;
    messages.push(processed);
  }
  await plugins.flush();
  const failed = await processPersons(tables.singleTable, messages);
  mergeFailures(failed, pluginFailures);
  const remaining = (): MessageEvents[] => messages.filter((message) => !failed.has(message.messageId));
  mergeFailures(failed, await storeOrFail(tables.eventsTable, remaining()));
  mergeFailures(failed, await recordDefinitions(tables.singleTable, remaining(), now, memory.seenToday));
  const ingested = remaining().filter((message) => message.events.length > 0);
  await memory.propertyValues.sample(tables.singleTable, ingested, now.getTime());
  mergeFailures(failed, await storeGroups(tables.singleTable, ingested));
  await memory.groupTypes.register(tables.singleTable, ingested);
  await memory.ingestedProjects.markIngested(
    tables.singleTable,
    ingested.map((message) => message.projectId),
  );
  if (tables.exportsQueueUrl)
    mergeFailures(
      failed,
      await handToExports(tables.exportsQueueUrl, tables.singleTable, memory.pluginConfigs, ingested),
    );
  countOutcome(records, messages, failed, dropped);
  if (failed.size > 0) {
    logger.warn('Messages left for retry', {
      count: failed.size,
      errors: [...new Set([...failed.values()].map((error) => error.name))],
    });
    await recordFailedAttempts(tables.singleTable, records, failed, now);
  }
  return { batchItemFailures: [...failed.keys()].map((itemIdentifier) => ({ itemIdentifier })) };
}
