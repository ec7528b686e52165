import { randomUUID } from 'node:crypto';
import type { PluginConfigRecord } from '../shared/db/plugin-configs';
import { recordPluginConfigError } from '../shared/db/plugin-configs';
import type { PluginLogEntryType } from '../shared/db/plugin-logs';
import { pluginLogPut, putPluginLogEntries } from '../shared/db/plugin-logs';
import { logger } from '../shared/logger';
import type { ExportFailure } from './export-error';

/** PostHog's `instance_id`: which exports container wrote an entry. */
const instanceId = randomUUID();

/** One PLUGIN log entry of the config; a failed write is logged, never retried. */
export async function writePluginLog(
  tableName: string,
  config: PluginConfigRecord,
  type: PluginLogEntryType,
  message: string,
  now: Date,
): Promise<void> {
  const entry = {
    id: randomUUID(),
    team_id: config.team_id,
    plugin_id: config.plugin,
    plugin_config_id: config.id,
    timestamp: now.toISOString(),
    source: 'PLUGIN' as const,
    type,
    message,
    instance_id: instanceId,
  };
  try {
    const failed = await putPluginLogEntries(tableName, [pluginLogPut(entry, entry.id)]);
    if (failed.size > 0) logger.warn('A plugin log entry was not written', { configId: config.id });
  } catch (error) {
    logger.warn('Writing a plugin log entry failed', { configId: config.id, reason: String(error) });
  }
}

/**
 * A failed export, as PostHog's processError records it: the config's `error` (the last failure)
 * and one PLUGIN/ERROR entry. What members read is the failure's message and code
 * (export-error.ts), never the raw error or a stack. Called at most once per config per batch or job
 * step.
 */
export async function reportExportFailure(
  tableName: string,
  config: PluginConfigRecord,
  failure: ExportFailure,
  now: Date,
): Promise<void> {
  const record = { message: failure.message, code: failure.code, time: now.toISOString(), event: null };
  await Promise.all([
    recordPluginConfigError(tableName, config.team_id, config.id, record).catch((reason: unknown) =>
      logger.warn('Recording the export error on its config failed', {
        configId: config.id,
        reason: String(reason),
      }),
    ),
    writePluginLog(tableName, config, 'ERROR', `${failure.message} (${failure.code})`, now),
  ]);
}
