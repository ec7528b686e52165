import { pluginErrorRecord, type PluginErrorRecord } from './plugin-error';
import type { BuiltInPlugin, PluginConfigValues } from './types';

export type PluginSetup =
  | { readonly ok: true; readonly state: unknown }
  | { readonly ok: false; readonly error: PluginErrorRecord; readonly setting?: string };

/** A setup failure due to one setting: the API names it (`config__<setting>`). */
export class PluginSettingError extends Error {
  override readonly name = 'PluginSettingError';
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A plugin config's state, or the error that keeps it from loading. The caller does this once per
 * config version and keeps the state: PostHog runs `setupPlugin` once per VM load, not per event. A
 * config that fails here does not run (its error is recorded, as PostHog does on a failed load).
 */
export function setupPluginConfig(plugin: BuiltInPlugin, config: PluginConfigValues, now: Date): PluginSetup {
  try {
    return { ok: true, state: plugin.setup(config) };
  } catch (error) {
    return {
      ok: false,
      error: pluginErrorRecord(error, now),
      ...(error instanceof PluginSettingError ? { setting: error.setting } : {}),
    };
  }
}
