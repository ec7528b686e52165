import { collectingConsole } from '../../../functions/shared/domain/plugins/console';
import type {
  BuiltInPlugin,
  ConsoleLine,
  PluginEvent,
  PluginMeta,
  PluginStorage,
  Properties,
} from '../../../functions/shared/domain/plugins/types';

/** PostHog's scaffold test event (`createEvent`), with Flock's required uuid. */
export function pluginEvent(changes: Partial<PluginEvent> = {}): PluginEvent {
  return {
    distinct_id: '007',
    ip: '127.128.129.130',
    site_url: 'http://localhost:8000/',
    team_id: 13,
    now: '2020-11-26T12:58:57.367Z',
    event: 'EVENT_TYPE',
    sent_at: '2020-11-26T12:58:58.453Z',
    timestamp: '2020-11-26T12:58:58.453Z',
    uuid: '0190a3d6-0000-7000-8000-000000000001',
    ...changes,
  };
}

/** The properties of the scaffold's `createPageview()`, in its key order (the Unduplicator hashes them). */
export const PAGEVIEW_PROPERTIES: Properties = {
  $os: 'Mac OS X',
  $lib: 'web',
  $host: 'localhost:8000',
  $time: 1606383312.494,
  token: 'mre13a_SMBv9EwHAtdtTyutyy6AfO00OTPwaalaHPGgKLS',
  $browser: 'Chrome',
  $user_id: '3erf45reXthrGser675waeHFAsbv4AsadfR',
  $pathname: '/instance/status',
  $device_id: '17554768afe5cb-0fc915d2a583cf-166f6152-1ea000-175543686ffdc5',
  $insert_id: 'hgu2p36uvlc1b9dg',
  distinct_id: 'scbbAqF7uyrMmamV4QBzcA1rrm9wHNISdFweZz-mQ0',
  $current_url: 'http://localhost:8000/instance/status',
  $lib_version: '1.7.0-beta.1',
  $screen_width: 1790,
  $screen_height: 1120,
  posthog_version: '1.17.0',
  $browser_version: 86,
  $initial_referrer: '$direct',
  has_slack_webhook: false,
  $active_feature_flags: ['navigation-1775', 'session-recording-player'],
  $initial_referring_domain: '$direct',
};

/** An in-memory plugin storage, as the scaffold's test `createCache` keeps it. */
export function memoryStorage(): PluginStorage & { readonly values: Map<string, unknown> } {
  const values = new Map<string, unknown>();
  return {
    values,
    get: async (key, defaultValue) => (values.has(key) ? values.get(key) : defaultValue),
    set: async (key, value) => {
      values.set(key, value);
    },
  };
}

/** A plugin's meta for a config, set up as the runtime does, with a console whose lines the test reads. */
export function metaFor<State>(
  plugin: BuiltInPlugin<State>,
  config: Record<string, string> = {},
  extra: Partial<Pick<PluginMeta, 'geoip' | 'storage'>> = {},
): PluginMeta<State> & { readonly lines: ConsoleLine[] } {
  const { console, lines } = collectingConsole();
  return { config, state: plugin.setup(config), console, lines, ...extra };
}

/** Runs a plugin's processEvent, which every processing plugin has. */
export async function run<State>(
  plugin: BuiltInPlugin<State>,
  event: PluginEvent,
  meta: PluginMeta<State>,
): Promise<PluginEvent | null> {
  if (!plugin.processEvent) throw new Error(`${plugin.name} has no processEvent`);
  return plugin.processEvent(event, meta);
}

/** A test plugin (id 900, no settings) whose processEvent is the given function. */
export const testPlugin = (
  name: string,
  processEvent: NonNullable<BuiltInPlugin['processEvent']>,
): BuiltInPlugin => ({
  id: 900,
  name,
  description: '',
  url: '',
  config_schema: [],
  capabilities: { jobs: [], methods: ['processEvent'], scheduled_tasks: [] },
  public_jobs: {},
  setup: () => null,
  processEvent,
});
