import type { PluginEvent } from './types';

/**
 * A plugin config's `error` as PostHog's plugin-server writes it (`processError`, `src/utils/db/error.ts`): the
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

/** `read()`, or `fallback` if reading throws (a getter, a proxy, a value that cannot be copied). */
function safely<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** What `String()` writes for a thrown value, or its kind where that throws (`Object.create(null)`). */
function describe(value: unknown): string {
  return safely(
    () => String(value),
    safely(() => `[thrown ${typeof value}]`, '[thrown value]'),
  );
}

/** A string property of a thrown object, read without letting its getter throw again. */
function textProperty(error: object, key: 'message' | 'name' | 'stack'): string | undefined {
  return safely(() => {
    const value: unknown = (error as Record<string, unknown>)[key];
    return typeof value === 'string' ? value : undefined;
  }, undefined);
}

/**
 * The record of a thrown value. A thrown string gives only `{message, time}`, as in PostHog; an
 * object gives its `message`, `name` and `stack` where they are strings (PostHog reads them off any
 * object); anything else its `String()`. It never throws itself, whatever was thrown (null, a Symbol,
 * an object whose getters throw), so one event's failure stays that event's. The event is copied, so
 * later plugins changing it do not change what the record says it was.
 */
export function pluginErrorRecord(
  error: unknown,
  time: Date,
  event: PluginEvent | null = null,
): PluginErrorRecord {
  const at = time.toISOString();
  if (typeof error === 'string') return { message: error, time: at };
  const snapshot = event === null ? null : safely(() => structuredClone(event), null);
  if (typeof error === 'object' && error !== null) {
    const name = textProperty(error, 'name');
    const stack = textProperty(error, 'stack');
    return {
      message: textProperty(error, 'message') ?? describe(error),
      time: at,
      ...(name === undefined ? {} : { name }),
      ...(stack === undefined ? {} : { stack }),
      event: snapshot,
    };
  }
  return { message: describe(error), time: at, event: snapshot };
}
