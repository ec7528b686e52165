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

/** A stored event's properties as JSON text, and its UTF-8 size. */
export interface PropertiesText {
  readonly json: string;
  readonly bytes: number;
}

/** Each stored event's properties as JSON text, by their object (`propertiesTextOf`). */
const propertiesTexts = new WeakMap<object, PropertiesText>();

/**
 * A stored event's properties as JSON text and its UTF-8 size, worked out once per properties
 * object: the store puts the text in the event's item and the lake hand-off in its message, in the
 * same invocation, and a 3 KB object costs several µs to write (and its size another µs to count)
 * each time. Stored events' properties never change once processEvent made them (the type's fields
 * are read-only, and nothing assigns into the object).
 */
export function propertiesTextOf(event: Pick<StoredEvent, 'properties'>): PropertiesText {
  let text = propertiesTexts.get(event.properties);
  if (text === undefined) {
    const json = JSON.stringify(event.properties);
    text = { json, bytes: Buffer.byteLength(json) };
    propertiesTexts.set(event.properties, text);
  }
  return text;
}
