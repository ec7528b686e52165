import { randomUUID } from 'node:crypto';
import type { PluginConfigRecord } from '../shared/db/plugin-configs';
import type { PluginLogEntry } from '../shared/db/plugin-logs';
import { pluginLogPut, putPluginLogEntries } from '../shared/db/plugin-logs';
import { logger } from '../shared/logger';

/**
 * A config's load history in its logs, as PostHog's plugin server writes it: SYSTEM/INFO
 * `Plugin loaded (instance ID <uuid>).` when a config starts running (plugin-server
 * `src/worker/vm/lazy.ts`) and `Plugin unloaded (instance ID <uuid>).` when it stops
 * (`src/worker/plugins/teardown.ts`). A load is a config enabled with given settings: enabling it, or
 * saving its settings while it is enabled (PostHog reloads the VM), starts one under a new instance
 * ID; disabling or deleting it ends it, under the ID it was loaded with.
 */

export interface LoadChange {
  /** The load the write ends, if any: its instance ID. */
  readonly unloads?: string;
  /** The instance ID of the load the write starts, to store with the config. */
  readonly loads?: string;
}

/**
 * What a write of `enabled` (undefined: unchanged) and, if `settingsSaved`, the settings does to the
 * load of a config that was `before` (undefined: a new config).
 */
export function loadChangeOf(
  before: Pick<PluginConfigRecord, 'enabled' | 'instance_id'> | undefined,
  enabled: boolean | undefined,
  settingsSaved: boolean,
): LoadChange {
  const wasRunning = before?.enabled === true;
  const runs = enabled ?? wasRunning;
  const reloads = wasRunning && runs && settingsSaved;
  return {
    // A config enabled before loads carried an ID: its end still needs one.
    ...(wasRunning && (!runs || reloads) ? { unloads: before.instance_id ?? randomUUID() } : {}),
    ...((runs && !wasRunning) || reloads ? { loads: randomUUID() } : {}),
  };
}

/** The SYSTEM entries of `change` for `config` (as written), the unload first, then the load. */
export async function logLoadChange(
  singleTable: string,
  config: PluginConfigRecord,
  change: LoadChange,
  now = new Date(),
): Promise<void> {
  const entry = (message: string, instanceId: string, at: Date): PluginLogEntry => ({
    id: randomUUID(),
    team_id: config.team_id,
    plugin_id: config.plugin,
    plugin_config_id: config.id,
    timestamp: at.toISOString(),
    source: 'SYSTEM',
    type: 'INFO',
    message,
    instance_id: instanceId,
  });
  const entries: PluginLogEntry[] = [];
  if (change.unloads)
    entries.push(entry(`Plugin unloaded (instance ID ${change.unloads}).`, change.unloads, now));
  // A millisecond later: entries sort by time, and the load follows the unload it replaces.
  if (change.loads)
    entries.push(
      entry(`Plugin loaded (instance ID ${change.loads}).`, change.loads, new Date(now.getTime() + 1)),
    );
  if (entries.length === 0) return;
  const failed = await putPluginLogEntries(
    singleTable,
    entries.map((logEntry) => pluginLogPut(logEntry, logEntry.id)),
  );
  // The config is saved: its history losing a line is logged, not answered as a failed save.
  if (failed.size > 0) logger.warn('Plugin lifecycle log entries were not written', { count: failed.size });
}
