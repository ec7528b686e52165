import { hasOwnEntry, isPlainContainer, prototypeSegmentOf } from './own-keys';
import type {
  BuiltInPlugin,
  ConfigRefusal,
  PluginConfigValues,
  PluginEvent,
  PluginMeta,
  Properties,
} from './types';

/**
 * PostHog's Property Filter (property-filter-plugin): removes the listed properties, nested ones
 * written as dot paths, and the event's `ip` when `$ip` is listed. PostHog's docs advise running it
 * last, after GeoIP has used the IP.
 */

interface PropertyFilterState {
  readonly removesIp: boolean;
  /** Each listed property once, split into its path. */
  readonly paths: readonly (readonly string[])[];
}

/**
 * Deletes one dot path. Walks only own keys of plain objects and arrays: the plugin's `key in`
 * follows inherited keys, so `constructor.hasOwn` would delete `Object.hasOwn` from the container
 * every project's events go through. Reaching a value that is not an object throws a TypeError, as
 * the plugin's `in` operator does, and the chain records that as its error.
 */
function removePath(value: unknown, path: readonly string[], depth: number): void {
  const key = path[depth];
  if (key === undefined) return;
  if (typeof value !== 'object' || value === null)
    throw new TypeError(`Cannot use 'in' operator to search for '${key}' in ${String(value)}`);
  if (!isPlainContainer(value) || !hasOwnEntry(value, key)) return;
  if (depth === path.length - 1) delete value[key];
  else removePath(value[key], path, depth + 1);
}

function processEvent(event: PluginEvent, meta: PluginMeta<PropertyFilterState>): PluginEvent {
  // A shallow copy: nested objects are shared with the event it was given, and lose their keys too.
  const properties: Properties = event.properties ? { ...event.properties } : {};
  if (meta.state.removesIp) delete event.ip;
  for (const path of meta.state.paths) removePath(properties, path, 0);
  // A new object: the chain's `$plugins_*` markers, written on the original, do not reach it (B.4).
  return { ...event, properties };
}

/** The listed properties; `split` of a missing value throws, so a config without the list fails to load, as in PostHog. */
const listed = (config: PluginConfigValues): string[] => (config['properties'] as string).split(',');

function setup(config: PluginConfigValues): PropertyFilterState {
  const entries = [...new Set(listed(config))];
  return { removesIp: entries.includes('$ip'), paths: entries.map((entry) => entry.split('.')) };
}

function refuseConfig(config: PluginConfigValues): ConfigRefusal | null {
  const segment = prototypeSegmentOf(listed(config), '.');
  return segment === undefined
    ? null
    : { key: 'properties', detail: `A property path may not go through "${segment}".` };
}

export const propertyFilterPlugin: BuiltInPlugin<PropertyFilterState> = {
  id: 2,
  name: 'Property Filter',
  description: 'This plugin will set all configured properties to null inside an ingested event.',
  url: 'https://github.com/witty-works/posthog-property-filter-plugin',
  config_schema: [
    {
      markdown:
        '\n\n# Important!\nThis plugin will only work on events ingested **after** the plugin was enabled. This means it **will** register events as being the first if there were events that occured **before** it was enabled. To mitigate this, you could consider renaming the relevant events and creating an [action](https://posthog.com/docs/features/actions) that matches both the old event name and the new one.\n',
    },
    {
      key: 'properties',
      name: 'List of properties to filter out:',
      type: 'string',
      default: '',
      hint: 'Separate properties with commas, without using spaces, like so: `foo,bar,baz`',
      required: true,
    },
  ],
  capabilities: { jobs: [], methods: ['setupPlugin', 'processEvent'], scheduled_tasks: [] },
  public_jobs: {},
  setup,
  refuseConfig,
  processEvent,
};
