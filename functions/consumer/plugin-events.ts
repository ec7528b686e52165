import { sanitizeEventName } from '../shared/domain/process-event';
import type { PluginEvent } from '../shared/domain/plugins/types';
import { copyOf, isObject } from '../shared/domain/properties';
import { canonicalUuid } from '../shared/domain/uuid';
import type { CapturedEvent, CaptureMessage } from '../shared/queue/message';

/**
 * A captured event as plugins see it (PostHog's PluginEvent) and back. Plugins run on the event as the
 * client sent it, before Flock normalises it (PostHog's order): the Unduplicator hashes the client's
 * own timestamp, not the clock-corrected one.
 */

/** A captured event after the plugins, with the request IP it is to be stored with. */
export interface TransformedEvent {
  readonly captured: CapturedEvent;
  /** The request's IP, or null where a plugin removed it (the Property Filter's `$ip`). */
  readonly ip: string | null;
}

export function toPluginEvent(message: CaptureMessage, captured: CapturedEvent): PluginEvent {
  const { data } = captured;
  const timestamp = data.timestamp;
  return {
    distinct_id: captured.distinct_id,
    ip: message.ip,
    site_url: message.site_url ?? '',
    team_id: message.project_id,
    now: message.now,
    event: sanitizeEventName(data.event),
    ...(message.sent_at ? { sent_at: message.sent_at } : {}),
    properties: isObject(data.properties) ? copyOf(data.properties) : {},
    ...(typeof timestamp === 'string' || typeof timestamp === 'number' ? { timestamp } : {}),
    ...(typeof data.offset === 'number' ? { offset: data.offset } : {}),
    ...(isObject(data.$set) ? { $set: data.$set } : {}),
    ...(isObject(data.$set_once) ? { $set_once: data.$set_once } : {}),
    uuid: captured.uuid,
  };
}

/** Sets `key` to `value`, or removes it where the plugins left no value. */
function assign(data: Record<string, unknown>, key: string, value: unknown): void {
  if (value === undefined) delete data[key];
  else data[key] = value;
}

/**
 * The captured event the plugins' output describes. A uuid or distinct id a plugin made unusable (not
 * a uuid, not a non-empty string) keeps the captured one: the event is still stored, under its own.
 */
export function fromPluginEvent(captured: CapturedEvent, event: PluginEvent): TransformedEvent {
  const data: Record<string, unknown> = {
    ...captured.data,
    event: event.event,
    properties: isObject(event.properties) ? event.properties : {},
  };
  assign(data, 'timestamp', event.timestamp);
  assign(data, 'offset', event.offset);
  assign(data, '$set', event.$set);
  assign(data, '$set_once', event.$set_once);
  const uuid = typeof event.uuid === 'string' && canonicalUuid.test(event.uuid) ? event.uuid : captured.uuid;
  const distinctId =
    typeof event.distinct_id === 'string' && event.distinct_id !== ''
      ? event.distinct_id
      : captured.distinct_id;
  return {
    captured: { uuid, distinct_id: distinctId, data },
    ip: typeof event.ip === 'string' ? event.ip : null,
  };
}
