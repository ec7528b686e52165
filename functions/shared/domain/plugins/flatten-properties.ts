import { spreadOf } from './spread';
import type { BuiltInPlugin, PluginEvent, PluginMeta, Properties } from './types';

/**
 * PostHog's Property Flattener (flatten-properties-plugin): adds a flat `parent<sep>child` copy of
 * every nested value, so filters can reach it, and keeps the nested originals.
 */

/** Properties ingestion uses internally, left as they are. */
const DENY_LIST: ReadonlySet<string> = new Set([
  '$elements',
  '$elements_chain',
  '$groups',
  '$active_feature_flags',
  '$heatmap_data',
  '$web_vitals_data',
]);

/** Person and group updates: flattened inside themselves rather than into the event's properties. */
const UPDATE_KEYS: ReadonlySet<string> = new Set(['$set', '$set_once', '$group_set']);

/**
 * `props` with a flat copy of every nested value: the originals first, then the flat keys over them
 * (a key met again keeps its first place and takes the later value). Like the plugin it reads any
 * value with `Object.entries`, so a `null` update (`$set: null`) throws a TypeError.
 */
export function flattenProperties(props: unknown, separator: string): Properties {
  const flat: Properties = {};
  addFlatEntries(props, separator, null, flat);
  // `flat` never holds an own `__proto__` (its keys are assigned), so assigning equals spreading.
  return Object.assign(spreadOf(props), flat);
}

/**
 * Adds the flat entries of `props` to `flat`, each under `prefix` (the path above it, with a trailing
 * separator; null at the top, where plain values are not copied). One object collects every level,
 * where the plugin spreads each level into a new one: the same keys in the same order, without
 * copying the entries gathered so far at every nested value.
 */
function addFlatEntries(props: unknown, separator: string, prefix: string | null, flat: Properties): void {
  // What `Object.entries` lists (and throws on), without an array per entry.
  const values = props as Properties;
  for (const key of Object.keys(values)) {
    const value = values[key];
    if (DENY_LIST.has(key)) continue;
    if (UPDATE_KEYS.has(key)) {
      // Written under its own name even when nested, as the plugin does.
      // The plugin writes `{ ...value, ...flattened }`: the flattened copy already starts with `value`.
      flat[key] = flattenProperties(value, separator);
    } else if (
      Array.isArray(value) ||
      (value !== null && typeof value === 'object' && Object.keys(value).length > 0)
    ) {
      addFlatEntries(value, separator, `${prefix ?? ''}${key}${separator}`, flat);
    } else if (prefix !== null) {
      flat[`${prefix}${key}`] = value;
    }
  }
}

function processEvent(event: PluginEvent, meta: PluginMeta<string>): PluginEvent {
  // Autocapture's properties describe DOM elements, which flattening would only multiply.
  if (event.event !== '$autocapture' && event.properties) {
    event.properties = flattenProperties(event.properties, meta.state);
  }
  return event;
}

export const flattenPropertiesPlugin: BuiltInPlugin<string> = {
  id: 5,
  name: 'Property Flattener Plugin',
  description: 'Flatten event properties to easily access them in filters.',
  url: 'https://github.com/PostHog/property-flattener-plugin',
  config_schema: [
    {
      key: 'separator',
      hint: "For example, to access the value of 'b' in a: { b: 1 } with separator '__', you can do 'a__b'",
      name: 'Select a separator format for accessing your nested properties',
      type: 'choice',
      choices: ['__', '.', '>', '/'],
      order: 1,
      default: '__',
      required: true,
    },
  ],
  capabilities: { jobs: [], methods: ['processEvent'], scheduled_tasks: [] },
  public_jobs: {},
  // Validation fills in the schema's default; the fallback covers a config that bypassed it.
  setup: (config) => config['separator'] ?? '__',
  processEvent,
};
