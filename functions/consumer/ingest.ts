import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import type { EventSource } from '../shared/db/events';
import { eventRefKey, storedEventSources } from '../shared/db/events';
import { recordFailedAttempts } from '../shared/db/failures';
import { logger } from '../shared/logger';
import { countDropped, countMetric, countPerProject, metricNames } from '../shared/metrics';
import { ingestQueue, lakeQueue } from '../shared/queue/definitions';
import { recordDefinitions, SeenTodayCache } from './definitions';
import type { StageFailures } from '../shared/stage-failures';
import type { GeoIpLocator } from '../shared/domain/plugins/types';
import { bundledLocator } from './geoip/locator';
import { handToExports } from './exports';
import { handToLake } from './lake';
import { ownEvents, sourcesOf } from './lake-sources';
import { PluginConfigs } from './plugin-configs';
import { PluginBatch } from './plugins';
import { GroupTypeRegistry } from './group-types';
import { storeGroups } from './groups';
import { IngestedProjects } from './ingested';
import { PropertyValueSampler } from './property-values';
import { PropertyDefinitionRecorder } from './property-definitions';
import type { ResolvedPersons } from './persons';
import { processPersons } from './persons';
import { parseRecords, processMessages } from './records';
import { Stages } from './stages';
import { storeEvents } from './store';
import type { ConsumerMemory, ConsumerTables, MessageEvents } from './types';
import { receiveCountOf } from '../shared/queue/receive-count';

export function newConsumerMemory(geoip: GeoIpLocator = bundledLocator()): ConsumerMemory {
  return {
    geoip,
    seenToday: new SeenTodayCache(),
    ingestedProjects: new IngestedProjects(),
    propertyValues: new PropertyValueSampler(),
    propertyDefinitions: new PropertyDefinitionRecorder(),
    groupTypes: new GroupTypeRegistry(),
    pluginConfigs: new PluginConfigs(),
  };
}

/**
 * Where the batch's events went, as metrics (see shared/metrics.ts). An event is stored once per
 * (project, uuid): a uuid the batch carried before is a duplicate within the batch, one stored before
 * the batch (`alreadyStored`) is a redelivery or an SDK retry; neither counts as stored.
 */
function countOutcome(
  records: readonly SQSRecord[],
  messages: readonly MessageEvents[],
  failed: StageFailures,
  dropped: number,
  alreadyStored: ReadonlySet<string>,
): void {
  const stored = new Map<number, number>();
  const seen = new Set<string>();
  let duplicates = 0;
  let storedBefore = 0;
  for (const message of messages) {
    if (failed.has(message.messageId)) continue;
    for (const event of message.events) {
      const key = eventRefKey(event);
      if (seen.has(key)) {
        duplicates++;
        continue;
      }
      seen.add(key);
      if (alreadyStored.has(key)) storedBefore++;
      else stored.set(message.projectId, (stored.get(message.projectId) ?? 0) + 1);
    }
  }
  countMetric(metricNames.eventsStored, seen.size - storedBefore);
  countPerProject(metricNames.eventsStored, stored);
  countMetric(metricNames.eventsDuplicate, duplicates);
  countMetric(metricNames.eventsAlreadyStored, storedBefore);
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
 * Time the stages after persons keep for themselves: the persons stage starts no group of events
 * once less than this is left before the invocation's deadline (its messages are retried).
 */
export const personsReserveMs = 12_000;

const personsOutOfTime = (deadline: number | undefined) => (): boolean =>
  deadline !== undefined && Date.now() > deadline - personsReserveMs;

/**
 * One SQS batch through the consumer's stages (docs/consumer.md), in PostHog's plugin-server order
 * (`process-event.ts`): plugins, normalisation, persons, stored events, then together definitions
 * and volumes, the aids (property value samples, group types, the project's first event) and the
 * hand-offs to exports and the lake. Each stage takes only the messages every earlier stage handled
 * (stages.ts). `deadline` (epoch ms, the invocation's) bounds the persons stage, the one whose
 * requests grow with the batch's new users: see `personsReserveMs`. Every stage is replayable, so a message that fails anywhere is simply reported for SQS
 * to deliver again (after 5 receives it moves to the DLQ); a record that can never be valid is logged
 * and dropped.
 */
export async function ingestRecords(
  records: readonly SQSRecord[],
  tables: ConsumerTables,
  memory: ConsumerMemory,
  now: Date = new Date(),
  deadline?: number,
): Promise<SQSBatchResponse> {
  const stages = new Stages();
  const { parsed, invalid } = parseRecords(records);
  const plugins = new PluginBatch(memory.pluginConfigs, tables.singleTable, now, memory.geoip);
  const transformed = await stages.transform('plugins', parsed, (messages) => plugins.transformAll(messages));
  const { messages, unprocessable } = processMessages(transformed);
  // Which events are stored already, and by which message (lake-sources.ts): read before the write,
  // strongly consistent, alongside persons, which never touches the events table. An event another
  // message stored is neither written again nor handed to the lake; the metrics count every one found.
  let found: ReadonlyMap<string, EventSource> = new Map();
  const sources = sourcesOf(records);
  // Each event's person as resolved here, for the lake's person_id and person_properties.
  const persons: ResolvedPersons = new Map();
  const [withPersons] = await Promise.all([
    stages.required('persons', messages, (batch) =>
      processPersons(tables.singleTable, batch, persons, personsOutOfTime(deadline)),
    ),
    stages.required('already-stored', messages, async (batch) => {
      found = await storedEventSources(
        tables.eventsTable,
        batch.flatMap((message) => message.events),
      );
    }),
  ]);
  const alreadyStored = new Set(found.keys());
  const stored = await stages.required('store', withPersons, (batch) =>
    storeEvents(tables.eventsTable, ownEvents(batch, found, sources), undefined, sources),
  );
  const ingested = stored.filter((message) => message.events.length > 0);
  // Definitions, the aids and the hand-offs to exports and the lake touch different items and need
  // nothing of each other, so they run at the same time. Each is replayable: a message one of them
  // fails is delivered again, and the others' second pass writes nothing new (the lake and exports
  // know a second hand-off of a message by its source).
  const { exportsQueueUrl, lakeQueueUrl } = tables;
  await Promise.all([
    stages.required('definitions', stored, (batch) =>
      recordDefinitions(tables.singleTable, batch, now, memory.seenToday),
    ),
    stages.bestEffort('property-values', ingested, (batch) =>
      memory.propertyValues.sample(tables.singleTable, batch, now.getTime()),
    ),
    stages.required('groups', ingested, (batch) => storeGroups(tables.singleTable, batch)),
    stages.required('property-definitions', ingested, (batch) =>
      memory.propertyDefinitions.record(tables.singleTable, batch, now),
    ),
    stages.bestEffort('group-types', ingested, (batch) =>
      memory.groupTypes.register(tables.singleTable, batch),
    ),
    stages.bestEffort('ingested-flag', ingested, (batch) =>
      memory.ingestedProjects.markIngested(
        tables.singleTable,
        batch.map((message) => message.projectId),
      ),
    ),
    exportsQueueUrl
      ? stages.required('exports', ingested, (batch) =>
          handToExports(exportsQueueUrl, tables.singleTable, memory.pluginConfigs, batch),
        )
      : undefined,
    lakeQueueUrl
      ? stages.required('lake', ingested, (batch) =>
          handToLake(
            lakeQueueUrl,
            ownEvents(batch, found, sources),
            sources,
            persons,
            tables.lakeSettleSeconds ?? lakeQueue.settleSeconds,
          ),
        )
      : undefined,
  ]);
  const { failed } = stages;
  countOutcome(records, messages, failed, invalid + unprocessable, alreadyStored);
  if (failed.size > 0) {
    logger.warn('Messages left for retry', {
      count: failed.size,
      errors: [...new Set([...failed.values()].map((error) => error.name))],
    });
    await recordFailedAttempts(tables.singleTable, records, failed, now);
  }
  return { batchItemFailures: [...failed.keys()].map((itemIdentifier) => ({ itemIdentifier })) };
}
