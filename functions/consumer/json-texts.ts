/**
 * The JSON text of objects a batch writes more than once, written once: an event's properties go
 * into its event item (db/events.ts `toEventItem`) and again into its lake hand-off (lake.ts), the
 * largest part of both. Keyed by the object itself, so it holds only for objects no stage changes
 * once the events are processed (the stages after `processMessages` read events, never change them);
 * one per batch, so nothing is kept across batches.
 */
export class JsonTexts {
  private readonly texts = new Map<object, string>();

  /** `JSON.stringify(value)`, written the first time it is asked for. */
  of(value: object): string {
    let text = this.texts.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      this.texts.set(value, text);
    }
    return text;
  }
}
