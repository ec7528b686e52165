import type { PluginEvent } from './types';

/**
 * A plugin config's `error` as PostHog's plugin-server writes it (`processError`, reference B.5): the
 * last failure only, with the event being processed when there was one.
 */
export interface PluginErrorRecord {
  readonly message: string;
  /** ISO 8601: when it failed. */
  readonly time: string;
  readonly name?: string;
  readonly stack?: string;
  readonly event?: PluginEvent | null;
}

/**
 * The record of a thrown value. A thrown string gives only `{message, time}`, as in PostHog; the event
 * is copied, so later plugins changing it do not change what the record says it was.
 */
export function pluginErrorRecord(
  error: unknown,
  time: Date,
  event: PluginEvent | null = null,
): PluginErrorRecord {
  if (typeof error === 'string') return { message: error, time: time.toISOString() };
  const snapshot = event === null ? null : structuredClone(event);
  if (error instanceof Error) {
    return {
      message: error.message,
      time: time.toISOString(),
      name: error.name,
      stack: error.stack,
      event: snapshot,
    };
  }
  return { message: String(error), time: time.toISOString(), event: snapshot };
}
