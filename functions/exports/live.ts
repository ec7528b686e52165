import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { createHash, randomBytes } from 'node:crypto';
import type { PluginConfigRecord } from '../shared/db/plugin-configs';
import { getPluginConfig } from '../shared/db/plugin-configs';
import { secretCipher } from '../shared/secrets/environment';
import { openSettings } from '../shared/secrets/plugin-settings';
import { claimEvents, countDeliveries, exportedMessages, markExported } from '../shared/db/plugin-exports';
import type { S3ExportState } from '../shared/domain/plugins/s3-export';
import {
  eventsToExport,
  jsonLines,
  s3ExportObject,
  s3ExportPlugin,
} from '../shared/domain/plugins/s3-export';
import { setupPluginConfig } from '../shared/domain/plugins/setup';
import type { ProcessedPluginEvent } from '../shared/domain/plugins/types';
import { envNames } from '../shared/config';
import { logger } from '../shared/logger';
import { countMetric, metricNames } from '../shared/metrics';
import type { ExportMessage } from '../shared/queue/export-message';
import { exportMessageSchema } from '../shared/queue/export-message';
import { exportsQueue } from '../shared/queue/definitions';
import { chunkBySize } from '../shared/chunks';
import { forEachLimited } from '../shared/concurrency';
import { exportFailureOf, invalidConfig } from './export-error';
import { reportExportFailure } from './outcome';
import { uploadObject } from './upload';
import { receiveCountOf } from '../shared/queue/receive-count';
import { recordFailedAttempts } from '../shared/db/failures';
import type { StageFailures } from '../shared/stage-failures';
import { asError, failMessages, mergeFailures } from '../shared/stage-failures';

/**
 * The live export (PostHog's `exportEvents` after ingestion): one batch of the exports queue, grouped by plugin config;
 * each config's events go to S3 in as few objects as `uploadMegabytes` allows. Exactly once, with
 * db/plugin-exports.ts: a message already exported is skipped, and an event already claimed by
 * another message (a second copy of it) is left out. A failed upload fails only the messages whose
 * events it held (partial batch response): SQS delivers them again after the visibility timeout,
 * and after `exportsQueue.maxReceiveCount` receives moves them to the exports DLQ.
 *
 * Tenants share a batch, so no config may hold up another's: the configs of a batch export side by
 * side, each within its own time (`exportBudget`), which ends well before the function's timeout. A
 * destination that hangs fails only its own messages, reported as batch item failures in time.
 */

const defaultPerConfigMs = 45_000;

/**
 * What one config's uploads may take in one invocation: 45 s, or less where the function's
 * environment says so (`FLOCK_EXPORT_BUDGET_MS`, whole milliseconds above 0); never more.
 */
export function perConfigBudgetMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env[envNames.exportBudgetMs]);
  return Number.isSafeInteger(value) && value > 0 ? Math.min(value, defaultPerConfigMs) : defaultPerConfigMs;
}

export const exportBudget = {
  /** What one config's uploads may take in one invocation (connect, send, retries). */
  perConfigMs: perConfigBudgetMs(),
  /** Kept for the bookkeeping after the uploads and the response, within the function's timeout. */
  reserveMs: 15_000,
  /** Configs exporting at once: a batch holds at most `exportsEventSource.batchSize` messages. */
  concurrentConfigs: 20,
} as const;

interface Received {
  readonly record: SQSRecord;
  readonly message: ExportMessage;
  /** Names the message's content, whichever SQS message carries it (db/plugin-exports.ts). */
  readonly hash: string;
}

interface Outcome {
  /** The messages to retry, each with the error that stopped it (recorded for `dlq list`). */
  readonly failed: StageFailures;
  readonly delivered: number;
  readonly undelivered: number;
}

function parse(record: SQSRecord): Received | undefined {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch {
    body = undefined;
  }
  const parsed = exportMessageSchema.safeParse(body);
  if (!parsed.success) {
    logger.error('Dropping a message that is not an export message', { messageId: record.messageId });
    return undefined;
  }
  const message = parsed.data;
  const uuids = message.events.map((event) => event.uuid).sort();
  const hash = createHash('sha256')
    .update(JSON.stringify([message.plugin_config_id, message.source, uuids]))
    .digest('hex')
    .slice(0, 32);
  return { record, message, hash };
}

/** The messages of one config: claimed, uploaded, marked exported; what failed, for SQS to retry. */
async function exportForConfig(
  tableName: string,
  config: PluginConfigRecord,
  state: S3ExportState,
  received: readonly Received[],
  now: Date,
  signal: AbortSignal,
): Promise<Outcome> {
  const done = await exportedMessages(
    tableName,
    config.id,
    received.map((entry) => entry.hash),
  );
  const pending: { received: Received; events: ProcessedPluginEvent[] }[] = [];
  for (const entry of received.filter((entry) => !done.has(entry.hash))) {
    const events = eventsToExport(entry.message.events, state);
    const claimed = await claimEvents(
      tableName,
      config.id,
      entry.message.source,
      events.map((event) => event.uuid),
      now,
    );
    pending.push({ received: entry, events: events.filter((event) => claimed.has(event.uuid)) });
  }
  const failed: StageFailures = new Map();
  let delivered = 0;
  let undelivered = 0;
  let lastError: unknown;
  // A message is at most 256 KiB of JSON, below the smallest limit (1 MB): never cut in two.
  const chunks = chunkBySize(
    pending,
    (entry) => jsonLines(entry.events).length + 1,
    state.uploadMegabytes * 1024 * 1024,
  );
  for (const chunk of chunks) {
    const events = chunk.flatMap((entry) => entry.events);
    const object = s3ExportObject(events, state, now, randomBytes(8).toString('hex'));
    try {
      // Once the config's time is spent, its remaining messages fail without a connection.
      signal.throwIfAborted();
      if (object) await uploadObject(state, object, signal);
    } catch (error) {
      lastError = error;
      for (const { received: entry, events: ofMessage } of chunk) {
        failed.set(entry.record.messageId, asError(error));
        // Counted as undelivered when SQS gives up on the message (PostHog's undelivered_events).
        if (receiveCountOf(entry.record) >= exportsQueue.maxReceiveCount) undelivered += ofMessage.length;
      }
      continue;
    }
    if (object) delivered += events.length;
    // Uploaded: the messages are acknowledged even if this fails (retrying them would upload their
    // events again); only a second copy of one of them could then export its events again.
    await markExported(
      tableName,
      config.id,
      chunk.map((entry) => entry.received.hash),
      now,
    ).catch((error: unknown) =>
      logger.warn('Recording exported messages failed', { configId: config.id, reason: String(error) }),
    );
  }
  if (lastError !== undefined) {
    // The raw error is for the operator's log only; members read its code and message.
    const failure = exportFailureOf(lastError);
    logger.error('S3 export failed', {
      configId: config.id,
      code: failure.code,
      reason: lastError instanceof Error ? lastError.message : JSON.stringify(lastError),
      messages: failed.size,
    });
    await reportExportFailure(tableName, config, failure, now);
  }
  return { failed, delivered, undelivered };
}

/** One config's messages, from loading the config to counting what was delivered. */
async function exportGroup(
  tableName: string,
  received: readonly Received[],
  now: Date,
  signal: AbortSignal,
): Promise<Outcome> {
  const { project_id: projectId, plugin_config_id: configId } = received[0]!.message;
  const config = await getPluginConfig(tableName, projectId, configId);
  if (!config?.enabled || config.plugin !== s3ExportPlugin.id) {
    // Switched off since the events were stored: PostHog exports only for enabled configs.
    logger.info('Export config not enabled: events not exported', { configId, count: received.length });
    return { failed: new Map(), delivered: 0, undelivered: 0 };
  }
  const setup = setupPluginConfig(s3ExportPlugin, await openSettings(secretCipher(), config), now);
  const outcome = setup.ok
    ? await exportForConfig(tableName, config, setup.state as S3ExportState, received, now, signal)
    : await (async () => {
        const error = new Error(setup.error.message);
        await reportExportFailure(tableName, config, invalidConfig(setup.error.message), now);
        const failed: StageFailures = new Map();
        failMessages(
          failed,
          received.map((entry) => entry.record.messageId),
          error,
        );
        return { failed, delivered: 0, undelivered: 0 };
      })();
  try {
    await countDeliveries(
      tableName,
      projectId,
      configId,
      { delivered: outcome.delivered, failed: outcome.undelivered },
      now,
    );
  } catch (error) {
    logger.warn('Counting export deliveries failed', { configId, reason: String(error) });
  }
  return outcome;
}

/**
 * The moment each config's uploads must stop: its own budget, and never later than the function's
 * remaining time allows (`remainingMs`, from the Lambda context) less what the bookkeeping needs.
 */
function uploadDeadline(startedAt: number, remainingMs: number | undefined): number {
  const own = startedAt + exportBudget.perConfigMs;
  return remainingMs === undefined ? own : Math.min(own, startedAt + remainingMs - exportBudget.reserveMs);
}

/** One batch of the exports queue; the messages to retry, as a partial batch response. */
export async function exportRecords(
  records: readonly SQSRecord[],
  tableName: string,
  now: Date = new Date(),
  remainingMs?: number,
): Promise<SQSBatchResponse> {
  const deadline = uploadDeadline(Date.now(), remainingMs);
  const groups = new Map<string, Received[]>();
  for (const record of records) {
    const received = parse(record);
    if (!received) continue;
    const key = `${received.message.project_id}#${received.message.plugin_config_id}`;
    groups.set(key, [...(groups.get(key) ?? []), received]);
  }
  const failed: StageFailures = new Map();
  let delivered = 0;
  let undelivered = 0;
  await forEachLimited([...groups.values()], exportBudget.concurrentConfigs, async (group) => {
    // Each config its own signal: one config's spent time never aborts another's upload.
    const signal = AbortSignal.timeout(Math.max(0, deadline - Date.now()));
    try {
      const outcome = await exportGroup(tableName, group, now, signal);
      mergeFailures(failed, outcome.failed);
      delivered += outcome.delivered;
      undelivered += outcome.undelivered;
    } catch (error) {
      // Reading the config or the claims failed: retry the config's messages.
      logger.error('Exporting failed', { reason: String(error) });
      failMessages(
        failed,
        group.map((entry) => entry.record.messageId),
        error,
      );
    }
  });
  countMetric(metricNames.eventsExported, delivered);
  countMetric(metricNames.exportFailures, undelivered);
  await recordFailedAttempts(tableName, records, failed, now);
  return { batchItemFailures: [...failed.keys()].map((itemIdentifier) => ({ itemIdentifier })) };
}
