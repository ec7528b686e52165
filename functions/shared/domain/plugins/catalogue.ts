import { downsamplingPlugin } from './downsampling';
import { firstTimeEventTrackerPlugin } from './first-time-event-tracker';
import { flattenPropertiesPlugin } from './flatten-properties';
import { geoIpPlugin } from './geoip';
import { propertyFilterPlugin } from './property-filter';
import { s3ExportPlugin } from './s3-export';
import { taxonomyPlugin } from './taxonomy';
import { timestampParserPlugin } from './timestamp-parser';
import type { BuiltInPlugin } from './types';
import { unduplicatorPlugin } from './unduplicator';
import { userAgentPlugin } from './user-agent';

/**
 * Flock's fixed plugin catalogue: no plugin code is ever installed, so these are all the plugins a
 * project can enable. Ids are stable: stored plugin configs point at them, so a plugin keeps its id
 * forever and a new one takes the next.
 */
export const PLUGIN_CATALOGUE: readonly BuiltInPlugin[] = [
  geoIpPlugin,
  propertyFilterPlugin,
  downsamplingPlugin,
  taxonomyPlugin,
  flattenPropertiesPlugin,
  timestampParserPlugin,
  userAgentPlugin,
  unduplicatorPlugin,
  firstTimeEventTrackerPlugin,
  s3ExportPlugin,
];

const byId: ReadonlyMap<number, BuiltInPlugin> = new Map(
  PLUGIN_CATALOGUE.map((plugin) => [plugin.id, plugin]),
);

// Fails at cold start, not at a request, if an edit gives two plugins one id.
if (byId.size !== PLUGIN_CATALOGUE.length) throw new Error('Two built-in plugins share an id');

/** The built-in plugin with this id, or undefined. */
export function pluginById(id: number): BuiltInPlugin | undefined {
  return byId.get(id);
}
