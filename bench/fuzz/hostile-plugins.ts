import { firstTimeEventTrackerPlugin } from '../../functions/shared/domain/plugins/first-time-event-tracker';
import { flattenPropertiesPlugin } from '../../functions/shared/domain/plugins/flatten-properties';
import { propertyFilterPlugin } from '../../functions/shared/domain/plugins/property-filter';
import { taxonomyPlugin } from '../../functions/shared/domain/plugins/taxonomy';
import { unduplicatorPlugin } from '../../functions/shared/domain/plugins/unduplicator';
import { downsamplingPlugin } from '../../functions/shared/domain/plugins/downsampling';
import { PROTOTYPE_KEYS } from '../../functions/shared/domain/plugins/own-keys';
import type { Fixtures, FuzzRequest } from './types';

/**
 * Hostile plugin configs, then events for them to run on: prototype paths for every plugin that
 * takes a path or a name from its settings, settings of the wrong type, and lists as long as a config
 * may be. What the API refuses must be a documented 400; what it takes (long lists, names that are
 * prototype keys) runs in the consumer on the events that follow, which must all be stored or dropped,
 * never dead-lettered, and must never reach the consumer's built-ins (one project's config once
 * deleted `Object.hasOwn` for every project of the container). Requests are shuffled into the rest of
 * the corpus, so each config is sent twice and each event batch several times: events meet configs
 * both before and after they change.
 */

type Json = Record<string, unknown>;

/** Property paths that walk from an object to JavaScript's own machinery. */
const prototypePaths = [
  'constructor.hasOwn,constructor.constructor.prototype.call',
  '__proto__.toString',
  'constructor.prototype.hasOwnProperty',
  'constructor.keys,constructor.assign,constructor.defineProperty',
  'a.__proto__.b',
  'prototype',
  'toString,valueOf,hasOwnProperty,__defineGetter__',
];

/** `count` comma-separated entries made by `entry`, as long a list as a config holds (64 KB). */
const list = (count: number, entry: (i: number) => string): string =>
  Array.from({ length: count }, (_, i) => entry(i)).join(',');

/** Settings of the wrong type, for any plugin's `config` and for a setting inside it. */
const junkValues: readonly unknown[] = [
  null,
  12,
  -1.5,
  true,
  '',
  [],
  ['a', 'b'],
  {},
  JSON.parse('{"__proto__": {"polluted": true}}'),
  'x'.repeat(70_000),
];

/** `{plugin, config}` pairs: prototype paths and names, junk and huge settings, for every plugin that takes them. */
function hostileConfigs(): { readonly label: string; readonly plugin: number; readonly config: unknown }[] {
  const configs: { label: string; plugin: number; config: unknown }[] = [];
  const add = (label: string, plugin: number, config: unknown): void => {
    configs.push({ label, plugin, config });
  };
  for (const paths of prototypePaths)
    add(`filter ${paths.slice(0, 40)}`, propertyFilterPlugin.id, { properties: paths });
  for (const key of PROTOTYPE_KEYS) {
    add(`filter ${key} alone`, propertyFilterPlugin.id, { properties: `safe,${key}` });
    add(`tracker ${key}`, firstTimeEventTrackerPlugin.id, { events: `${key},swept,constructor` });
    add(`flattener separator ${key}`, flattenPropertiesPlugin.id, { separator: key });
    add(`taxonomy ${key}`, taxonomyPlugin.id, { defaultNamingConvention: key });
    add(`unduplicator ${key}`, unduplicatorPlugin.id, { dedupMode: key });
    add(`${key} as a setting`, propertyFilterPlugin.id, JSON.parse(`{"${key}": "x", "properties": "a"}`));
  }
  for (const [i, junk] of junkValues.entries()) {
    add(`filter config junk ${i}`, propertyFilterPlugin.id, junk);
    add(`filter properties junk ${i}`, propertyFilterPlugin.id, { properties: junk });
    add(`tracker events junk ${i}`, firstTimeEventTrackerPlugin.id, { events: junk });
    add(`flattener separator junk ${i}`, flattenPropertiesPlugin.id, { separator: junk });
    // Not a number: one the API took would drop the rest of the corpus's events.
    if (typeof junk !== 'number')
      add(`downsampling percentage junk ${i}`, downsamplingPlugin.id, { percentage: junk });
  }
  // As long as a config may be (64 KB), and longer: the first run on every event, the last are refused.
  add('filter 6,000 paths', propertyFilterPlugin.id, { properties: list(6_000, (i) => `p${i}.q${i}`) });
  add('filter 12,000 paths', propertyFilterPlugin.id, { properties: list(12_000, (i) => `p${i}.q${i}`) });
  add('filter one deep path', propertyFilterPlugin.id, {
    properties: list(8_000, () => 'a').replace(/,/g, '.'),
  });
  add('filter 20,000 commas', propertyFilterPlugin.id, { properties: ','.repeat(20_000) });
  add('tracker 8,000 events', firstTimeEventTrackerPlugin.id, { events: list(8_000, (i) => `e${i}`) });
  add('tracker 20,000 events', firstTimeEventTrackerPlugin.id, { events: list(20_000, (i) => `e${i}`) });
  // What each plugin takes, so the events below meet a running chain of them.
  add('flattener', flattenPropertiesPlugin.id, { separator: '__' });
  add('taxonomy', taxonomyPlugin.id, { defaultNamingConvention: 'snake_case' });
  add('unduplicator', unduplicatorPlugin.id, { dedupMode: 'All Properties' });
  add('tracker', firstTimeEventTrackerPlugin.id, { events: 'constructor,__proto__,toString,swept' });
  add('filter', propertyFilterPlugin.id, { properties: 'secret,a.b,constructor' });
  return configs;
}

/** Events whose names and keys are prototype keys, for the configs above to run on (raw JSON text). */
const hostileEvents: readonly string[] = [
  '{"event": "constructor", "properties": {"distinct_id": "p1", "constructor": {"hasOwn": 1, "prototype": {"call": 2}}}}',
  '{"event": "__proto__", "properties": {"distinct_id": "p2", "__proto__": {"toString": 1, "polluted": true}}}',
  '{"event": "toString", "properties": {"distinct_id": "p3", "": {"proto__": {}}, "a": {"b": 1}}}',
  '{"event": "hasOwnProperty", "properties": {"distinct_id": "p4", "$set": {"__proto__": {"x": 1}, "constructor": 1}}}',
  '{"event": "swept", "properties": {"distinct_id": "p5", "secret": 1, "a": "text"}}',
  '{"event": "swept", "properties": {"distinct_id": "p6", "$set": null, "list": [1, {"__proto__": 2}]}}',
  `{"event": "prototype", "properties": {"distinct_id": "p7", "${'k'.repeat(100_000)}": {${list(20, (i) => `"v${i}": ${i}`)}}}}`,
];

export function hostilePluginFuzz(f: Fixtures): FuzzRequest[] {
  const configs = `/api/projects/${f.projectId}/plugin_configs/`;
  const headers = { authorization: `Bearer ${f.personalApiKey}`, 'content-type': 'application/json' };
  const requests: FuzzRequest[] = [];
  for (const { label, plugin, config } of hostileConfigs()) {
    const body = JSON.stringify({ plugin, enabled: true, config } satisfies Json);
    for (let copy = 0; copy < 2; copy++)
      requests.push({
        method: 'POST',
        path: configs,
        headers,
        body,
        label: `hostile plugin config: ${label}`,
      });
  }
  // The disabled S3 Export of the fixtures: settings of the wrong type are refused, it stays disabled.
  for (const [i, junk] of junkValues.entries())
    requests.push({
      method: 'PATCH',
      path: `${configs}${f.pluginConfigId}/`,
      headers,
      body: JSON.stringify({ config: junk }),
      label: `hostile plugin config: PATCH junk ${i}`,
    });
  const batch = `{"api_key": ${JSON.stringify(f.projectApiKey)}, "batch": [${hostileEvents.join(',')}]}`;
  for (let copy = 0; copy < 6; copy++)
    requests.push({
      method: 'POST',
      path: '/batch/',
      headers: { 'content-type': 'application/json' },
      body: batch,
      label: 'hostile plugin config: events with prototype keys',
    });
  return requests;
}
