import { copyOf, isObject } from '../properties';
import { pluginErrorRecord, type PluginErrorRecord } from './plugin-error';
import type { BuiltInPlugin, PluginEvent, PluginMeta } from './types';

/**
 * The processEvent chain of ingestion, as PostHog's plugin-server runs it (`runProcessEvent`,
 * `src/worker/plugins/run.ts`): a project's enabled plugin configs, in ascending `order`, each given the previous
 * one's output, before persons and storage.
 */

/** A project's plugin config as the chain needs it. */
export interface PluginConfigToRun {
  readonly id: number;
  readonly order: number;
  readonly enabled: boolean;
  readonly plugin: BuiltInPlugin;
}

/**
 * The meta a config's plugin runs with (config, state from setup, console, GeoIP, storage), or null
 * when the config failed to set up: like a PostHog VM that did not load, it is then skipped.
 */
export type PluginMetaFactory = (config: PluginConfigToRun) => PluginMeta | null | Promise<PluginMeta | null>;

export interface PluginChainFailure {
  readonly pluginConfigId: number;
  readonly error: PluginErrorRecord;
}

export interface PluginChainResult {
  /** The event to store, or null when a plugin dropped it. */
  readonly event: PluginEvent | null;
  readonly droppedBy: { readonly pluginConfigId: number; readonly pluginName: string } | null;
  /** One per config that threw, in run order: each becomes the config's `error` and a PLUGIN/ERROR log. */
  readonly failures: readonly PluginChainFailure[];
}

/** PostHog's error for a plugin that moves an event to another project; its name shows in the record. */
class IllegalOperationError extends Error {
  override name = 'IllegalOperationError';
}

/** PostHog runs no processEvent on recordings: they are large, frequent and not analytics events. */
const EVENTS_NOT_PROCESSED: ReadonlySet<string> = new Set(['$snapshot', '$performance_event']);

/** Plugins that receive events after storage (onEvent, or exportEvents upgraded to it). */
const runsAfterStorage = (plugin: BuiltInPlugin): boolean =>
  plugin.capabilities.methods.includes('onEvent') || plugin.capabilities.methods.includes('exportEvents');

/** How PostHog names a config in `$plugins_*` and logs: `"<plugin name> (<config id>)"`. */
export const pluginIdentifier = (config: PluginConfigToRun): string => `${config.plugin.name} (${config.id})`;

/** Enabled configs in run order; equal orders keep the order they were given in, as PostHog's sort does. */
const configsToRun = (configs: readonly PluginConfigToRun[]): PluginConfigToRun[] =>
  configs.filter((config) => config.enabled).sort((a, b) => a.order - b.order);

interface Step {
  readonly config: PluginConfigToRun;
  /** `pluginIdentifier(config)`, for `$plugins_*`. */
  readonly identifier: string;
  readonly deferred: boolean;
}

/**
 * The chain's steps for a list of configs, worked out once per list: ingestion runs every event of a
 * message (and of a container's cached configs) through the same list.
 */
const stepsByConfigs = new WeakMap<readonly PluginConfigToRun[], readonly Step[]>();
function stepsOf(configs: readonly PluginConfigToRun[]): readonly Step[] {
  let steps = stepsByConfigs.get(configs);
  if (!steps) {
    steps = configsToRun(configs).map((config) => ({
      config,
      identifier: pluginIdentifier(config),
      deferred: runsAfterStorage(config.plugin),
    }));
    stepsByConfigs.set(configs, steps);
  }
  return steps;
}

/**
 * Runs the chain. A plugin's null (or undefined) drops the event at once: no later plugin runs and no
 * markers are written. A throw records the error with the event the plugin was given, adds the config
 * to `$plugins_failed`, and goes on with that same event object: PostHog passes plugins the event
 * itself, so what a plugin changed before it threw stays. A plugin that changes `team_id` has it set
 * back and counts as failed.
 *
 * If any config ran or is deferred, `$plugins_succeeded`, `$plugins_failed` and `$plugins_deferred`
 * are written into the properties of the event the chain was given, which is the event stored unless a
 * plugin returned a new object (the Property Filter does), exactly as in PostHog.
 *
 * PostHog (2023+) also skips configs already listed in an incoming event's `$plugins_succeeded` or
 * `$plugins_failed`, for its own retries. Flock does not: a client could list a Property Filter there
 * to keep the properties it removes, and Flock's redeliveries are raw events, which the deterministic
 * plugins (Downsampling, Unduplicator) already process the same way twice.
 */
export async function runPluginChain(
  event: PluginEvent,
  configs: readonly PluginConfigToRun[],
  metaFor: PluginMetaFactory,
  now: () => Date = () => new Date(),
): Promise<PluginChainResult> {
  if (EVENTS_NOT_PROCESSED.has(event.event)) return { event, droppedBy: null, failures: [] };
  const teamId = event.team_id;
  const succeeded: string[] = [];
  const failed: string[] = [];
  const deferred: string[] = [];
  const failures: PluginChainFailure[] = [];
  let current: PluginEvent = event;

  for (const { config, identifier, deferred: runsAfter } of stepsOf(configs)) {
    const { plugin } = config;
    if (plugin.processEvent) {
      const meta = await metaFor(config);
      if (meta === null) continue;
      let returned: PluginEvent | null = current;
      try {
        returned = (await plugin.processEvent(current, meta)) ?? null;
        if (returned !== null && typeof returned !== 'object') {
          returned = current;
          throw new IllegalOperationError('Plugin returned something that is not an event');
        }
        if (returned && returned.team_id !== teamId) {
          returned.team_id = teamId;
          throw new IllegalOperationError('Plugin tried to change event.team_id');
        }
        succeeded.push(identifier);
      } catch (error) {
        // Whatever was thrown (null, a Symbol, an object whose getters throw), the record is made
        // without throwing again: the event goes on, as PostHog's processEvent errors let it.
        // After a team_id change the chain goes on with the plugin's (repaired) output, as PostHog's does.
        failures.push({ pluginConfigId: config.id, error: pluginErrorRecord(error, now(), returned) });
        failed.push(identifier);
      }
      if (!returned)
        return { event: null, droppedBy: { pluginConfigId: config.id, pluginName: plugin.name }, failures };
      current = returned;
    }
    if (runsAfter) deferred.push(identifier);
  }

  if (succeeded.length > 0 || failed.length > 0 || deferred.length > 0) {
    // `{ ...event.properties, $plugins_succeeded, … }`. When the event given is the one stored, its
    // properties are the chain's own (a copy of the captured ones, or a plugin's): the markers go on
    // them rather than on another copy of the whole event. Otherwise the stored event must not get
    // them, whatever it shares with this one.
    const properties =
      current === event && isObject(event.properties) ? event.properties : copyOf(event.properties);
    properties['$plugins_succeeded'] = succeeded;
    properties['$plugins_failed'] = failed;
    properties['$plugins_deferred'] = deferred;
    event.properties = properties;
  }
  return { event: current, droppedBy: null, failures };
}
