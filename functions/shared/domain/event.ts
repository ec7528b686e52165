/** An event as Flock stores and serves it, after ingestion's normalisation. */
export interface StoredEvent {
  readonly uuid: string;
  readonly projectId: number;
  readonly event: string;
  readonly distinctId: string;
  readonly properties: Record<string, unknown>;
  /** ISO 8601 UTC with milliseconds: the corrected time the event happened. */
  readonly timestamp: string;
  readonly elementsChain: string;
  /** ISO 8601 UTC: when Flock received it. */
  readonly createdAt: string;
}

/** Each stored event's properties as JSON text, by their object (`propertiesJsonOf`). */
const propertiesTexts = new WeakMap<object, string>();

/**
 * A stored event's properties as JSON text, written once per properties object: the store puts it
 * in the event's item and the lake hand-off in its message, in the same invocation, and a 3 KB
 * object costs several µs to write each time. Stored events' properties never change once
 * processEvent made them (the type's fields are read-only, and nothing assigns into the object).
 */
export function propertiesJsonOf(event: Pick<StoredEvent, 'properties'>): string {
  let json = propertiesTexts.get(event.properties);
  if (json === undefined) {
    json = JSON.stringify(event.properties);
    propertiesTexts.set(event.properties, json);
  }
  return json;
}
