import { boundedCache, ReadThroughCache } from '../shared/cache';
import type { PluginConfigRecord } from '../shared/db/plugin-configs';
import { listPluginConfigs } from '../shared/db/plugin-configs';
import { pluginById } from '../shared/domain/plugins/catalogue';
import type { PluginConfigToRun } from '../shared/domain/plugins/chain';
import type { PluginSetup } from '../shared/domain/plugins/setup';
import { setupPluginConfig } from '../shared/domain/plugins/setup';
import { logger } from '../shared/logger';
import { sealedSettings } from '../shared/secrets/plugin-settings';

/**
 * Each project's enabled plugin configs, as the consumer runs them: read once per project per
 * `pluginConfigsTtlMs` per container (one Query), so a change made through the API reaches ingestion
 * within that time, and set up once per config version (PostHog's `setupPlugin` per VM load).
 */
export const pluginConfigsTtlMs = 5_000;

export interface LoadedPluginConfig extends PluginConfigToRun {
  readonly record: PluginConfigRecord;
  readonly setup: PluginSetup;
  /** The settings it was set up with: a setup failure is reported once per version. */
  readonly version: string;
}

/**
 * PostHog's setup retries (plugin-server `src/worker/vm/lazy.ts`): a failed `setupPlugin` is tried
 * again after 5 s, then 10, 20, 40 and 80 s (`INITIALIZATION_RETRY_BASE_MS` × 2^(n−1)); after
 * `VM_INIT_MAX_RETRIES` (5) failures the next attempt gives up.
 */
export const maxSetupRetries = 5;
const retryBaseMs = 5_000;

/** What a setup attempt of this batch came to, for the config's log. */
export type SetupAttempt =
  | {
      readonly outcome: 'failed';
      readonly attempt: number;
      readonly retryInSeconds: number;
      readonly message: string;
    }
  | { readonly outcome: 'succeeded'; readonly attempt: number }
  | { readonly outcome: 'gave up'; readonly attempt: number };

export class PluginConfigs {
  private readonly projects = new Map<string, ReadThroughCache<number, { configs: LoadedPluginConfig[] }>>();
  private readonly setups = boundedCache<string, PluginSetup>({ max: 2_000 });
  /** Per config version that failed its setup: attempts made, and when the next one is due. */
  private readonly attempts = boundedCache<string, { made: number; dueAt: number }>({ max: 2_000 });

  /**
   * The setup attempt due for a config that failed its setup, if any, made now: the first failure
   * (the config's load) counts as attempt 1; each retry runs the setup again when due. This
   * container's memory holds the schedule, so each container retries on its own.
   */
  setupAttempt(config: LoadedPluginConfig, now: Date): SetupAttempt | undefined {
    if (config.setup.ok) return undefined;
    const known = this.attempts.get(config.version);
    if (known && (known.made > maxSetupRetries || now.getTime() < known.dueAt)) return undefined;
    const made = (known?.made ?? 0) + 1;
    let setup: PluginSetup = config.setup;
    if (known) {
      if (made > maxSetupRetries) {
        this.attempts.set(config.version, { made, dueAt: Infinity });
        return { outcome: 'gave up', attempt: made };
      }
      setup = setupPluginConfig(config.plugin, sealedSettings(config.record), now);
      if (setup.ok) {
        this.setups.set(config.version, setup);
        this.attempts.delete(config.version);
        return { outcome: 'succeeded', attempt: made };
      }
    }
    const retryInMs = retryBaseMs * 2 ** (made - 1);
    this.attempts.set(config.version, { made, dueAt: now.getTime() + retryInMs });
    return {
      outcome: 'failed',
      attempt: made,
      retryInSeconds: retryInMs / 1000,
      message: setup.error.message,
    };
  }

  /** The project's enabled configs of known plugins; throws if they cannot be read (the message is retried). */
  async of(tableName: string, projectId: number): Promise<readonly LoadedPluginConfig[]> {
    const loaded = await this.cacheFor(tableName).get(projectId);
    return loaded?.configs ?? [];
  }

  private cacheFor(tableName: string) {
    let cache = this.projects.get(tableName);
    if (!cache) {
      cache = new ReadThroughCache<number, { configs: LoadedPluginConfig[] }>({
        max: 1_000,
        ttlMs: pluginConfigsTtlMs,
        load: async (projectId) => ({ configs: await this.load(tableName, projectId) }),
        onStaleServed: (projectId, error) =>
          logger.warn('Running cached plugin configs: reload failed', { projectId, error: error as Error }),
      });
      this.projects.set(tableName, cache);
    }
    return cache;
  }

  private async load(tableName: string, projectId: number): Promise<LoadedPluginConfig[]> {
    const configs: LoadedPluginConfig[] = [];
    for (const record of await listPluginConfigs(tableName, projectId)) {
      const plugin = pluginById(record.plugin);
      if (!record.enabled || !plugin) continue;
      // Secrets stay sealed: the consumer only checks they are set (the exports function opens them).
      const settings = sealedSettings(record);
      const version = `${record.id}\u0000${JSON.stringify(settings)}`;
      let setup = this.setups.get(version);
      if (!setup) {
        setup = setupPluginConfig(plugin, settings, new Date());
        this.setups.set(version, setup);
      }
      configs.push({ id: record.id, order: record.order, enabled: true, plugin, record, setup, version });
    }
    return configs;
  }
}
