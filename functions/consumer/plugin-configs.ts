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

export class PluginConfigs {
  private readonly projects = new Map<string, ReadThroughCache<number, { configs: LoadedPluginConfig[] }>>();
  private readonly setups = boundedCache<string, PluginSetup>({ max: 2_000 });
  private readonly reported = boundedCache<string, true>({ max: 2_000 });

  /** True the first time this container sees a config version fail its setup: report it then only. */
  firstSetupFailure(config: LoadedPluginConfig): boolean {
    if (config.setup.ok || this.reported.has(config.version)) return false;
    this.reported.set(config.version, true);
    return true;
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
