import { defineOwn, hasOwnProtoKey, isObject } from '../properties';
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
 * The characters of flat keys one event may make. Each nested value's key repeats the path above it,
 * so what flattening writes grows with depth times breadth, not with what the client sent: a 100 KB
 * key above 10,000 values would make a gigabyte of keys. Real events make a few KB.
 */
export const maxFlatKeyCharacters = 1_000_000;

/**
 * Within `maxFlatKeyCharacters`, an event's flat keys may take this many characters, plus
 * `flatKeyCharactersPerKeyCharacter` for every character of the keys it holds: real flat keys
 * repeat each key about as often as it is deep. A fixed allowance alone let each event of a batch
 * (10,000 events, 25 MB) turn 11 KB of keys into a megabyte of them (a 10,000-character key above
 * 99 values): 2 ms of flattening an event, and as much again to store and deflate what it made.
 */
export const baseFlatKeyCharacters = 10_000;
export const flatKeyCharactersPerKeyCharacter = 8;

/** What is left of an event's flat key characters: grows with each key read, within the cap. */
interface Budget {
  left: number;
  /** What `left` may still grow by, of `maxFlatKeyCharacters`. */
  toGrant: number;
}

const newBudget = (): Budget => ({
  left: baseFlatKeyCharacters,
  toGrant: maxFlatKeyCharacters - baseFlatKeyCharacters,
});

/**
 * `props` with a flat copy of every nested value: the originals first, then the flat keys over them
 * (a key met again keeps its first place and takes the later value). Like the plugin it reads any
 * value with `Object.entries`, so a `null` update (`$set: null`) throws a TypeError. An event whose
 * flat keys would pass its budget (`baseFlatKeyCharacters`, `flatKeyCharactersPerKeyCharacter`,
 * `maxFlatKeyCharacters`) throws too, and is kept as it came.
 */
export function flattenProperties(
  props: unknown,
  separator: string,
  budget: Budget = newBudget(),
): Properties {
  const flat: Properties = {};
  addFlatEntries(props, separator, null, flat, budget);
  // A flat key can be `__proto__` (`{"": {"proto__": 1}}` with `__`): it is an own key of `flat`
  // (defineOwn), which a spread copies as a key and `Object.assign` would take as the prototype.
  if (hasOwnProtoKey(flat)) return { ...spreadOf(props), ...flat };
  return Object.assign(spreadOf(props), flat);
}

/**
 * Adds the flat entries of `props` to `flat`, each under `prefix` (the path above it, with a trailing
 * separator; null at the top, where plain values are not copied). One object collects every level,
 * where the plugin spreads each level into a new one: the same keys in the same order, without
 * copying the entries gathered so far at every nested value.
 */
function addFlatEntries(
  props: unknown,
  separator: string,
  prefix: string | null,
  flat: Properties,
  budget: Budget,
): void {
  // What `Object.entries` lists (and throws on), without an array per entry.
  const values = props as Properties;
  for (const key of Object.keys(values)) {
    const value = values[key];
    if (DENY_LIST.has(key)) continue;
    const grant = Math.min(budget.toGrant, flatKeyCharactersPerKeyCharacter * key.length);
    budget.left += grant;
    budget.toGrant -= grant;
    if (UPDATE_KEYS.has(key)) {
      // Written under its own name even when nested, as the plugin does.
      // The plugin writes `{ ...value, ...flattened }`: the flattened copy already starts with `value`.
      flat[key] = flattenProperties(value, separator, budget);
    } else if (
      Array.isArray(value) ||
      (value !== null && typeof value === 'object' && Object.keys(value).length > 0)
    ) {
      addFlatEntries(value, separator, `${prefix ?? ''}${key}${separator}`, flat, budget);
    } else if (prefix !== null) {
      budget.left -= prefix.length + key.length;
      if (budget.left < 0)
        throw new Error(
          `Flattening would make more flat key characters than the event's budget (${baseFlatKeyCharacters} + ${flatKeyCharactersPerKeyCharacter} per character of its keys, at most ${maxFlatKeyCharacters})`,
        );
      // Keys come from the client: `defineOwn` keeps a `__proto__` one a key, never a prototype.
      defineOwn(flat, `${prefix}${key}`, value);
    }
  }
}

/**
 * `flattenProperties` of an event's own properties object, with the flat keys added to it rather
 * than to a copy: the same keys in the same order (a key already there takes the later value where
 * it is, a new one comes after the others, as in the copy). Nothing is added if flattening throws.
 * The chain hands each plugin the event's properties to change (PostHog's plugins change them in
 * place); copying every key of an event that earlier plugins (GeoIP adds a dozen) left as a slow V8
 * dictionary cost more than the flattening itself.
 */
function flattenInPlace(props: Properties, separator: string): Properties {
  const flat: Properties = {};
  addFlatEntries(props, separator, null, flat, newBudget());
  // A flat `__proto__` key (see flattenProperties) must stay a key: the copy's spreads keep it one.
  if (hasOwnProtoKey(flat)) return { ...props, ...flat };
  return Object.assign(props, flat);
}

function processEvent(event: PluginEvent, meta: PluginMeta<string>): PluginEvent {
  // Autocapture's properties describe DOM elements, which flattening would only multiply.
  if (event.event !== '$autocapture' && event.properties) {
    event.properties = isObject(event.properties)
      ? flattenInPlace(event.properties, meta.state)
      : flattenProperties(event.properties, meta.state);
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
