import { createHash } from 'node:crypto';
import type { BuiltInPlugin, PluginEvent, PluginMeta } from './types';

/**
 * PostHog's Unduplicator (posthog-plugin-unduplicates): gives an event a uuid derived from what makes
 * it the same event, so a client's resend or a backfill overlapping live data is stored once (the
 * store keeps the first event of a uuid).
 */

/** RFC 4122's OID namespace. The plugin hashes it as text in the key, not as bytes as UUIDv5 does. */
const NAMESPACE_OID = '6ba7b812-9dad-11d1-80b4-00c04fd430c8';

export const ALL_PROPERTIES = 'All Properties';

/** The key's SHA-1 with UUIDv5's version and variant bits, written as a uuid. */
export function unduplicatedUuid(event: PluginEvent, dedupMode: string): string {
  const properties = dedupMode === ALL_PROPERTIES ? `_${JSON.stringify(event.properties)}` : '';
  const key = `${NAMESPACE_OID}_${event.team_id}_${event.distinct_id}_${event.event}_${event.timestamp}${properties}`;
  const bytes = createHash('sha1').update(key).digest();
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function processEvent(event: PluginEvent, meta: PluginMeta<string>): PluginEvent {
  if (!event.timestamp) {
    // Without a timestamp, two sends of one event differ in when they arrived: no stable key exists.
    meta.console.info(
      'Received event without a timestamp, the event will not be processed because deduping will not work.',
    );
    return event;
  }
  event.uuid = unduplicatedUuid(event, meta.state);
  return event;
}

export const unduplicatorPlugin: BuiltInPlugin<string> = {
  id: 8,
  name: 'Unduplicates',
  description: 'Prevent duplicates in your data when ingesting.',
  url: 'https://github.com/paolodamico/posthog-plugin-unduplicates',
  config_schema: [
    {
      key: 'dedupMode',
      name: 'Dedup Mode',
      type: 'choice',
      required: true,
      choices: ['Event and Timestamp', 'All Properties'],
    },
  ],
  capabilities: { jobs: [], methods: ['processEvent'], scheduled_tasks: [] },
  public_jobs: {},
  setup: (config) => config['dedupMode'] ?? '',
  processEvent,
};
