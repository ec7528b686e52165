import type { StoredEvent } from '../event';
import { isObject } from '../properties';
import type { ProcessedPluginEvent } from './types';

/**
 * A stored event as exports receive it: PostHog's `ProcessedPluginEvent` (`@posthog/plugin-scaffold`), built as
 * its plugin server built it from the ingested event (`$set`/`$set_once` read from the properties,
 * the IP from `$ip`). The live export and the historical export both build it from what was stored,
 * so an event exports the same either way.
 */
export function toProcessedPluginEvent(event: StoredEvent): ProcessedPluginEvent {
  const { properties } = event;
  const ip = properties.$ip;
  return {
    distinct_id: event.distinctId,
    ip: typeof ip === 'string' ? ip : null,
    team_id: event.projectId,
    event: event.event,
    properties,
    timestamp: event.timestamp,
    ...(isObject(properties.$set) ? { $set: properties.$set } : {}),
    ...(isObject(properties.$set_once) ? { $set_once: properties.$set_once } : {}),
    uuid: event.uuid,
  };
}
