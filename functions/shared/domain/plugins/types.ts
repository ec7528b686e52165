/**
 * The plugin interface of PostHog's 2022 plugin-server (`@posthog/plugin-scaffold`, `src/types.ts`),
 * narrowed to what Flock's built-in catalogue runs: `setupPlugin` and `processEvent`, with `exportEvents`
 * done by pure functions the exports function calls. Everything a plugin needs from the outside world
 * (GeoIP database, key-value storage, logging) reaches it through `PluginMeta`, so plugins stay pure and
 * tests hand them fakes.
 */

export type Properties = Record<string, unknown>;

/** An event as a plugin's `processEvent` receives and returns it: PostHog's `PluginEvent`. */
export interface PluginEvent {
  distinct_id: string;
  /** Optional because the Property Filter deletes it when told to filter `$ip`. */
  ip?: string | null;
  site_url: string;
  team_id: number;
  now: string;
  event: string;
  sent_at?: string;
  properties?: Properties;
  /**
   * As the client sent it. PostHog types it as a string, but a JSON body can carry a number, and
   * the Timestamp Parser handles both.
   */
  timestamp?: string | number;
  offset?: number;
  /** Person properties to set, when a client sends them beside `properties` (PostHog carries both). */
  $set?: Properties;
  $set_once?: Properties;
  uuid: string;
}

/** What exports receive after ingestion stored the event: PostHog's `ProcessedPluginEvent`. */
export interface ProcessedPluginEvent {
  distinct_id: string;
  ip: string | null;
  team_id: number;
  event: string;
  properties: Properties;
  timestamp: string;
  $set?: Properties;
  $set_once?: Properties;
  uuid: string;
}

/** PostHog's plugin log entry types; `console.<type>` inside a plugin maps 1:1 to them. */
export type PluginLogType = 'DEBUG' | 'LOG' | 'INFO' | 'WARN' | 'ERROR';

/** A line a plugin wrote with `console.*`: stored as a CONSOLE log entry of its config. */
export interface ConsoleLine {
  readonly type: PluginLogType;
  readonly message: string;
}

/** The `console` a plugin sees (scaffold's `ConsoleExtension`). */
export interface PluginConsole {
  debug(...args: unknown[]): void;
  log(...args: unknown[]): void;
  info(...args: unknown[]): void;
  warn(...args: unknown[]): void;
  error(...args: unknown[]): void;
}

/** A name as MaxMind's GeoIP2 records carry it: one string per locale. */
export interface GeoIpNames {
  readonly en?: string;
  readonly [locale: string]: string | undefined;
}

/**
 * The part of a MaxMind GeoIP2 `City` record (as `@maxmind/geoip2-node` returns it) that the GeoIP
 * plugin reads. `confidence` values exist only in MaxMind's enterprise database.
 */
export interface GeoIpCity {
  readonly city?: { readonly names?: GeoIpNames; readonly confidence?: number };
  readonly continent?: { readonly code?: string; readonly names?: GeoIpNames };
  readonly country?: { readonly isoCode?: string; readonly names?: GeoIpNames; readonly confidence?: number };
  readonly location?: {
    readonly latitude?: number;
    readonly longitude?: number;
    readonly accuracyRadius?: number;
    readonly timeZone?: string;
  };
  readonly postal?: { readonly code?: string; readonly confidence?: number };
  readonly subdivisions?: readonly {
    readonly isoCode?: string;
    readonly names?: GeoIpNames;
    readonly confidence?: number;
  }[];
}

/** PostHog's `meta.geoip`: a lookup in a GeoLite2/GeoIP2 City database, null when the IP is unknown. */
export interface GeoIpLocator {
  locate(ip: string): GeoIpCity | null | Promise<GeoIpCity | null>;
}

/** PostHog's `meta.storage`: a key-value store private to one plugin config. */
export interface PluginStorage {
  get(key: string, defaultValue: unknown): Promise<unknown>;
  set(key: string, value: unknown): Promise<void>;
}

/** A plugin config's settings after validation: every value is a string, as PostHog's form stores it. */
export type PluginConfigValues = Readonly<Record<string, string>>;

/** What a plugin's functions receive beside the event (scaffold's `meta`, reduced to what Flock offers). */
export interface PluginMeta<State = unknown> {
  readonly config: PluginConfigValues;
  /** What the plugin's `setup` returned for this config: PostHog's `meta.global`. */
  readonly state: State;
  readonly console: PluginConsole;
  /** Absent where the runtime has no GeoIP database; the GeoIP plugin then fails as PostHog's does. */
  readonly geoip?: GeoIpLocator;
  /** Absent where the runtime offers no storage; only the First Time Event Tracker needs it. */
  readonly storage?: PluginStorage;
}

export type ConfigFieldType = 'string' | 'json' | 'attachment' | 'choice';

/**
 * One entry of a plugin's `config_schema`, as PostHog's plugin.json writes it. An entry with only
 * `markdown` is text the UI shows between fields; it has no key and holds no value.
 */
export interface ConfigSchemaField {
  readonly key?: string;
  readonly name?: string;
  readonly type?: ConfigFieldType;
  readonly default?: string;
  readonly hint?: string;
  readonly markdown?: string;
  readonly order?: number;
  readonly required?: boolean;
  readonly secret?: boolean;
  readonly choices?: readonly string[];
}

/** A setting the API refuses: a 400 `invalid_input` with `attr` `config__<key>`. */
export interface ConfigRefusal {
  readonly key: string;
  readonly detail: string;
}

/** PostHog's `Plugin.capabilities`, written back by the plugin-server after it loads a plugin. */
export interface PluginCapabilities {
  readonly jobs: readonly string[];
  readonly methods: readonly string[];
  readonly scheduled_tasks: readonly string[];
}

/** The payload a public job takes, as the UI renders its form (`plugin.json` `publicJobs`). */
export interface PublicJobSpec {
  readonly payload: Readonly<
    Record<string, { readonly type: string; readonly title?: string; readonly required?: boolean }>
  >;
}

/** A plugin of Flock's fixed catalogue: PostHog's Plugin row plus the code that runs it. */
export interface BuiltInPlugin<State = unknown> {
  /** Stable across releases: plugin configs refer to it. */
  readonly id: number;
  readonly name: string;
  readonly description: string;
  readonly url: string;
  readonly config_schema: readonly ConfigSchemaField[];
  readonly capabilities: PluginCapabilities;
  readonly public_jobs: Readonly<Record<string, PublicJobSpec>>;
  /**
   * PostHog's `setupPlugin`: reads the config once per load into the state every event sees. A throw
   * means the plugin failed to load, so it does not run (PostHog's VM never exposes its methods).
   * Method syntax on purpose: the catalogue holds plugins of different states as `BuiltInPlugin`.
   */
  setup(config: PluginConfigValues): State;
  /**
   * What the API refuses in settings that `setup` would take (a Property Filter path through
   * `constructor`): the setting's key and why, or null. Checked when a config is written only, so a
   * config stored before a rule existed still loads.
   */
  refuseConfig?(config: PluginConfigValues): ConfigRefusal | null;
  /** Absent for plugins that only export. Returning null drops the event. */
  processEvent?(
    event: PluginEvent,
    meta: PluginMeta<State>,
  ): PluginEvent | null | Promise<PluginEvent | null>;
}
