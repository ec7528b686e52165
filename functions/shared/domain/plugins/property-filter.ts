import type { BuiltInPlugin, PluginEvent, PluginMeta, Properties } from './types';

/**
 * PostHog's Property Filter (property-filter-plugin): removes the listed properties, nested ones
 * written as dot paths, and the event's `ip` when `$ip` is listed. PostHog's docs advise running it
 * last, after GeoIP has used the IP.
 */

/**
 * Deletes one dot path. Walks only keys that exist; reaching a value that is not an object throws a
 * TypeError (the `in` operator's), as the plugin does, and the chain records that as its error.
 */
function removePath(properties: unknown, path: string[]): void {
  const key = path.shift();
  if (key === undefined || !(key in (properties as Properties))) return;
  const container = properties as Properties;
  if (path.length === 0) delete container[key];
  else removePath(container[key], path);
}

function processEvent(event: PluginEvent, meta: PluginMeta<readonly string[]>): PluginEvent {
  // A shallow copy: nested objects are shared with the event it was given, and lose their keys too.
  const properties: Properties = event.properties ? { ...event.properties } : {};
  for (const entry of meta.state) {
    if (entry === '$ip') delete event.ip;
    removePath(properties, entry.split('.'));
  }
  // A new object: the chain's `$plugins_*` markers, written on the original, do not reach it (B.4).
  return { ...event, properties };
}

export const propertyFilterPlugin: BuiltInPlugin<readonly string[]> = {
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
  // `split` of a missing value throws, so a config without the list fails to load, as in PostHog.
  setup: (config) => (config['properties'] as string).split(','),
  processEvent,
};
