import type { PluginConfigRecord } from '../db/plugin-configs';
import { pluginById } from '../domain/plugins/catalogue';
import { maskSecrets } from '../domain/plugins/config-schema';
import { sealedSettings } from '../secrets/plugin-settings';
import type { BuiltInPlugin } from '../domain/plugins/types';
import type { PluginConfigResponse, PluginResponse } from '../schemas/plugin';

/**
 * A built-in plugin in PostHog's PluginSerializer shape (`posthog/api/plugin.py`). Every organization has the
 * whole catalogue, so each plugin is `is_global`; its type is `repository`, as for the plugins PostHog
 * installs from its own list. No plugin is installed from a git tag, so `tag` is null.
 */
export function serializePlugin(plugin: BuiltInPlugin): PluginResponse {
  return {
    id: plugin.id,
    plugin_type: 'repository',
    name: plugin.name,
    description: plugin.description,
    url: plugin.url,
    config_schema: plugin.config_schema.map((field) => ({ ...field })),
    tag: null,
    is_global: true,
    capabilities: {
      jobs: [...plugin.capabilities.jobs],
      methods: [...plugin.capabilities.methods],
      scheduled_tasks: [...plugin.capabilities.scheduled_tasks],
    },
    public_jobs: { ...plugin.public_jobs },
  };
}

/**
 * A plugin config as PostHog's 2023 serializer shows it: secret settings masked, `plugin_info` the
 * plugin (only outside lists), `delivery_rate_24h` the share of exported events delivered in the last
 * 24 hours (db/plugin-exports.ts), null for plugins that export nothing or when nothing was exported.
 */
export function serializePluginConfig(
  record: PluginConfigRecord,
  withPluginInfo: boolean,
  deliveryRate: number | null = null,
): PluginConfigResponse {
  const plugin = pluginById(record.plugin);
  return {
    id: record.id,
    plugin: record.plugin,
    enabled: record.enabled,
    order: record.order,
    config: plugin ? maskSecrets(sealedSettings(record), plugin.config_schema) : {},
    error: record.error,
    team_id: record.team_id,
    plugin_info: withPluginInfo && plugin ? serializePlugin(plugin) : null,
    delivery_rate_24h: deliveryRate,
    created_at: record.created_at,
  };
}

/** PostHog's list order: by `order`, then plugin id. */
export function byRunOrder(a: PluginConfigRecord, b: PluginConfigRecord): number {
  return a.order - b.order || a.plugin - b.plugin;
}
