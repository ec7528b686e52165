import { randomUUID } from 'node:crypto';
import type { TaggedPut } from '../shared/db/operations';
import { recordPluginConfigError } from '../shared/db/plugin-configs';
import type { PluginLogEntry, PluginLogEntryType, PluginLogSource } from '../shared/db/plugin-logs';
import { pluginLogPut, putPluginLogEntries } from '../shared/db/plugin-logs';
import { pluginStorageFor } from '../shared/db/plugin-storage';
import { nameUuid } from '../shared/domain/name-uuid';
import { runPluginChain } from '../shared/domain/plugins/chain';
import { collectingConsole } from '../shared/domain/plugins/console';
import { downsamplingPlugin } from '../shared/domain/plugins/downsampling';
import type { PluginErrorRecord } from '../shared/domain/plugins/plugin-error';
import type { GeoIpLocator, PluginMeta } from '../shared/domain/plugins/types';
import { logger } from '../shared/logger';
import { countDropped } from '../shared/metrics';
import type { CaptureMessage } from '../shared/queue/message';
import type { LoadedPluginConfig, PluginConfigs, SetupAttempt } from './plugin-configs';
import type { TransformedEvent } from './plugin-events';
import { fromPluginEvent, toPluginEvent } from './plugin-events';
import type { ParsedMessage, TransformedMessage } from './records';
import type { Handed } from './stages';
import type { StageFailures } from '../shared/stage-failures';
import { failMessages } from '../shared/stage-failures';

/**
 * The processEvent plugins of one consumer batch (plugin-server `src/worker/plugins/run.ts`): each message's events go
 * through their project's enabled configs in order, before persons and storage. A dropped event is
 * left out (and acknowledged with its message: a drop is not a failure). A throwing plugin keeps the
 * event; its config's `error` is set to the last failure of the batch and a PLUGIN/ERROR log entry
 * written per failed event, both once the batch's events are through (`flush`). Console lines become
 * CONSOLE entries. Entries per config and batch are capped, so a plugin failing on every event costs
 * a bounded number of writes.
 *
 * Replays: log entries carry the time Flock received the event and an id derived from the event, so
 * a redelivered message rewrites the entries it wrote the first time rather than adding more.
 */

const maxLogEntriesPerConfig = 20;
/** A config's `error` holds the event it failed on: kept well inside one item's 400 KB. */
const maxErrorBytes = 32_000;
/** The namespace of log entry ids derived from (config, event, entry). */
const logIdNamespace = '5b0f4d1e-7c2a-4f51-9a36-0d8e2b6c9f14';
/** PostHog's `instance_id`: which plugin VM wrote an entry. Here: which consumer container. */
const instanceId = randomUUID();

/** A failure record small enough to store: the event dropped, then the stack cut, if too large. */
function storableError(error: PluginErrorRecord): Record<string, unknown> {
  const record = { ...error };
  if (jsonBytes(record) <= maxErrorBytes) return record;
  const small = { ...record, event: null, message: record.message.slice(0, 2_000) };
  return { ...small, ...(small.stack ? { stack: small.stack.slice(0, 8_000) } : {}) };
}

/** The size of `value` as JSON; Infinity for what JSON cannot write (a cycle a plugin left in the event). */
function jsonBytes(value: unknown): number {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '');
  } catch {
    return Infinity;
  }
}

const isoOr = (text: string, fallback: Date): string => {
  const time = Date.parse(text);
  return Number.isNaN(time) ? fallback.toISOString() : new Date(time).toISOString();
};

export class PluginBatch {
  private readonly errors = new Map<number, { projectId: number; error: Record<string, unknown> }>();
  private readonly logs: TaggedPut[] = [];
  private readonly logCounts = new Map<number, number>();
  private droppedByPlugin = 0;
  private downsampled = 0;

  constructor(
    private readonly configs: PluginConfigs,
    private readonly tableName: string,
    private readonly now: Date,
    /** The GeoIP plugin's database; without it that plugin fails, as PostHog's does without one. */
    private readonly geoip?: GeoIpLocator,
  ) {}

  /**
   * The plugin stage: every message's events after its project's plugins, then the batch's plugin
   * outcomes written (`flush`). A message whose configs cannot be read fails (and is retried).
   */
  async transformAll(messages: readonly ParsedMessage[]): Promise<Handed<TransformedMessage>> {
    const handOn: TransformedMessage[] = [];
    const failed: StageFailures = new Map();
    for (const parsed of messages) {
      try {
        handOn.push({ ...parsed, transformed: await this.transform(parsed.message) });
      } catch (error) {
        logger.error('Running plugins failed', { messageId: parsed.messageId, reason: String(error) });
        failMessages(failed, [parsed.messageId], error);
      }
    }
    await this.flush();
    return { handOn, failed };
  }

  /** The message's events after its project's plugins; throws if its configs cannot be read. */
  private async transform(message: CaptureMessage): Promise<TransformedEvent[]> {
    const configs = await this.configs.of(this.tableName, message.project_id);
    if (configs.length === 0) return message.events.map((captured) => ({ captured, ip: message.ip }));
    for (const config of configs)
      this.reportSetupAttempt(config, this.configs.setupAttempt(config, this.now));
    const byId = new Map(configs.map((config) => [config.id, config]));
    const receivedAt = isoOr(message.now, this.now);
    const transformed: TransformedEvent[] = [];
    for (const captured of message.events) {
      const consoles = new Map<number, ReturnType<typeof collectingConsole>>();
      const metaFor = (config: LoadedPluginConfig): PluginMeta | null => {
        if (!config.setup.ok) return null;
        const console = collectingConsole();
        consoles.set(config.id, console);
        return {
          config: config.record.config,
          state: config.setup.state,
          console: console.console,
          storage: pluginStorageFor(this.tableName, config.id, captured.uuid),
          ...(this.geoip ? { geoip: this.geoip } : {}),
        };
      };
      const result = await runPluginChain(toPluginEvent(message, captured), configs, (config) =>
        metaFor(byId.get(config.id)!),
      );
      for (const { pluginConfigId, error } of result.failures) {
        const config = byId.get(pluginConfigId)!;
        this.errors.set(config.id, { projectId: config.record.team_id, error: storableError(error) });
        this.log(config, 'PLUGIN', 'ERROR', error.message, receivedAt, `${captured.uuid}#error`);
      }
      for (const [configId, { lines }] of consoles) {
        lines.forEach((line, n) =>
          this.log(
            byId.get(configId)!,
            'CONSOLE',
            line.type,
            line.message,
            receivedAt,
            `${captured.uuid}#${n}`,
          ),
        );
      }
      if (result.event) transformed.push(fromPluginEvent(captured, result.event));
      else if (result.droppedBy?.pluginName === downsamplingPlugin.name) this.downsampled++;
      else this.droppedByPlugin++;
    }
    return transformed;
  }

  /** Counts the batch's drops and writes its errors and log entries; a failed write is logged, not retried. */
  private async flush(): Promise<void> {
    countDropped('plugin', this.droppedByPlugin);
    countDropped('downsampled', this.downsampled);
    const writes = [...this.errors].map(([configId, { projectId, error }]) =>
      recordPluginConfigError(this.tableName, projectId, configId, error),
    );
    if (this.logs.length > 0) {
      writes.push(
        putPluginLogEntries(this.tableName, this.logs).then((failed) => {
          if (failed.size > 0)
            logger.warn('Some plugin log entries were not written', { count: failed.size });
        }),
      );
    }
    for (const outcome of await Promise.allSettled(writes)) {
      if (outcome.status === 'rejected')
        logger.warn('Recording a plugin outcome failed', { reason: String(outcome.reason) });
    }
  }

  /**
   * PostHog's SYSTEM entries of a setup attempt (plugin-server `src/worker/vm/lazy.ts`): a failure is
   * `setupPlugin failed (instance ID …). Retrying in N s.` then the error's message, both ERROR; a
   * retry that works is INFO `setupPlugin completed successfully (instance ID …).`; the attempt after
   * the last retry gives up with `Plugin failed to load (instance ID …). Disabling it due to too many
   * retries – tried to load it N times before giving up.` A failure is also the config's `error`.
   */
  private reportSetupAttempt(config: LoadedPluginConfig, attempt: SetupAttempt | undefined): void {
    if (!attempt) return;
    const at = this.now.toISOString();
    const origin = `setup#${config.version}#${attempt.attempt}`;
    if (attempt.outcome === 'succeeded') {
      this.log(
        config,
        'SYSTEM',
        'INFO',
        `setupPlugin completed successfully (instance ID ${instanceId}).`,
        at,
        origin,
      );
      return;
    }
    if (attempt.outcome === 'gave up') {
      const message =
        `Plugin failed to load (instance ID ${instanceId}). Disabling it due to too many retries – ` +
        `tried to load it ${attempt.attempt} times before giving up.`;
      this.log(config, 'SYSTEM', 'ERROR', message, at, origin);
      return;
    }
    if (!config.setup.ok)
      this.errors.set(config.id, {
        projectId: config.record.team_id,
        error: storableError(config.setup.error),
      });
    const retrying = `setupPlugin failed (instance ID ${instanceId}). Retrying in ${attempt.retryInSeconds} s.`;
    this.log(config, 'SYSTEM', 'ERROR', retrying, at, origin);
    // A millisecond later: entries sort by time, and the error follows the line announcing it.
    const after = new Date(this.now.getTime() + 1).toISOString();
    this.log(config, 'SYSTEM', 'ERROR', attempt.message, after, `${origin}#error`);
  }

  private log(
    config: LoadedPluginConfig,
    source: PluginLogSource,
    type: PluginLogEntryType,
    message: string,
    timestamp: string,
    origin: string,
  ): void {
    const count = this.logCounts.get(config.id) ?? 0;
    if (count >= maxLogEntriesPerConfig) return;
    this.logCounts.set(config.id, count + 1);
    const entry: PluginLogEntry = {
      id: nameUuid(`${config.id}#${origin}`, logIdNamespace),
      team_id: config.record.team_id,
      plugin_id: config.plugin.id,
      plugin_config_id: config.id,
      timestamp,
      source,
      type,
      message,
      instance_id: instanceId,
    };
    this.logs.push(pluginLogPut(entry, entry.id));
  }
}
