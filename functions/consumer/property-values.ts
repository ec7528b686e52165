import { boundedCache } from '../shared/cache';
import { batchPutAll } from '../shared/db/operations';
import { propertyValuePut } from '../shared/db/property-values';
import { displayValues, sampleKeyLimits, unsampledProperties } from '../shared/domain/property-values';
import { logger } from '../shared/logger';
import type { MessageEvents } from './types';

/**
 * Ingestion-time sampling of property values (what `GET /events/values/` lists), at a bounded cost:
 * one write per 25 events on average, the credit carried from batch to batch (a batch of 10 events
 * writes nothing and leaves its credit to the next), and at most `valuesPerKeyPerMinute` new values
 * of one property per minute per container: a steady stream of events with ever new values (session
 * ids, URLs, amounts) fills the sample over minutes rather than writing on every batch. Values this
 * container wrote within the last hour are skipped, and among the rest the keys with the fewest
 * recent values go first, so the sample covers many properties before it deepens on any one. A failed
 * write is logged and dropped: the sample is a convenience for the values endpoint, never a reason to
 * redeliver events.
 */
const eventsPerWrite = 25;
export const valuesPerKeyPerMinute = 10;
const minuteMs = 60 * 1000;
/** Credit carried at most: what a batch may look at stays bounded when there is little to write. */
const maxCredit = 1_000 * eventsPerWrite;
const rememberMs = 60 * 60 * 1000;
const maxRemembered = 50_000;
/** Events whose properties are considered per write allowed: enough choice, at a cost ∝ the budget. */
const eventsLookedAtPerWrite = 4;

/** About `count` events spread evenly over the batch (each message keeps its events and id). */
function pickEvents(messages: readonly MessageEvents[], count: number): MessageEvents[] {
  const total = messages.reduce((sum, message) => sum + message.events.length, 0);
  if (total <= count) return [...messages];
  const step = total / count;
  let next = 0;
  let index = 0;
  return messages.map((message) => {
    const events = message.events.filter(() => {
      const take = index >= next;
      if (take) next += step;
      index++;
      return take;
    });
    return { ...message, events };
  });
}

interface Candidate {
  readonly projectId: number;
  readonly key: string;
  readonly value: string;
  lastSeen: string;
  readonly messageId: string;
}

/** A property's values seen in one batch (see `candidates`), or false when it is not sampled. */
type ValuesOfKey = Map<string, Candidate | null> | false;

export class PropertyValueSampler {
  /** Pairs written, with the time until which they are skipped (least recently written go first). */
  private readonly written = boundedCache<string, number>({ max: maxRemembered });
  /** Values remembered per key, to spread the writes over keys (as bounded as `written`). */
  private readonly valuesPerKey = boundedCache<string, number>({ max: maxRemembered });
  /** Values written per key in its current minute, and when that minute ends. */
  private readonly thisMinute = boundedCache<string, { readonly until: number; count: number }>({
    max: maxRemembered,
  });
  /** Events not yet paid for with a write. */
  private credit = 0;

  /** The sample of these messages' property values, written to the single table. */
  async sample(tableName: string, messages: readonly MessageEvents[], now = Date.now()): Promise<void> {
    this.credit = Math.min(
      maxCredit,
      this.credit + messages.reduce((sum, message) => sum + message.events.length, 0),
    );
    const budget = Math.floor(this.credit / eventsPerWrite);
    if (budget === 0) return;
    const chosen = this.choose(
      this.candidates(pickEvents(messages, budget * eventsLookedAtPerWrite), now),
      budget,
      now,
    );
    if (chosen.length === 0) return;
    this.credit -= chosen.length * eventsPerWrite;
    const puts = chosen.map((c) => propertyValuePut(c.projectId, c.key, c.value, c.lastSeen, c.messageId));
    const failed = await batchPutAll(tableName, puts).catch((error: unknown) => {
      logger.warn('Property value sample not stored', { reason: String(error) });
      return new Map(chosen.map((candidate) => [candidate.messageId, error]));
    });
    for (const candidate of chosen) {
      if (!failed.has(candidate.messageId)) this.remember(candidate, now);
    }
  }

  private candidates(messages: readonly MessageEvents[], now: number): Candidate[] {
    const candidates: Candidate[] = [];
    // Per project, each property's values seen in this batch: its candidate, or null when this
    // container wrote the pair recently (skipped), so the cache is asked once per value and batch,
    // not once per event. `false` for a property not sampled in this batch: a key that used up its
    // values of this minute (every key with ever new values, within the first batches of a minute)
    // has none of its values chosen (`choose`), so they are not looked at.
    const byProject = new Map<number, Map<string, ValuesOfKey>>();
    for (const message of messages) {
      let keys = byProject.get(message.projectId);
      if (!keys) byProject.set(message.projectId, (keys = new Map<string, ValuesOfKey>()));
      for (const event of message.events) {
        // Keys, not entries: a pair array per property of every event looked at is garbage.
        for (const key of Object.keys(event.properties)) {
          const raw = event.properties[key];
          let values = keys.get(key);
          if (values === undefined) {
            const sampled =
              !unsampledProperties.has(key) &&
              Buffer.byteLength(key) <= sampleKeyLimits.maxKeyBytes &&
              this.roomThisMinute(`${message.projectId}\u0000${key}`, now) > 0;
            keys.set(key, (values = sampled ? new Map() : false));
          }
          if (!values) continue;
          // A text value seen before is its own display value: no need to derive it again.
          const known = typeof raw === 'string' ? values.get(raw) : undefined;
          for (const value of known === undefined ? displayValues(raw) : [raw as string]) {
            const candidate = values.get(value);
            if (candidate) {
              if (event.timestamp > candidate.lastSeen) candidate.lastSeen = event.timestamp;
            } else if (candidate === undefined) {
              if ((this.written.get(pairOf(message.projectId, key, value)) ?? 0) > now) {
                values.set(value, null);
                continue;
              }
              const added: Candidate = {
                projectId: message.projectId,
                key,
                value,
                lastSeen: event.timestamp,
                messageId: message.messageId,
              };
              values.set(value, added);
              candidates.push(added);
            }
          }
        }
      }
    }
    return candidates;
  }

  /** Values `key` may still have written this minute. */
  private roomThisMinute(key: string, now: number): number {
    const minute = this.thisMinute.get(key);
    return minute && minute.until > now ? valuesPerKeyPerMinute - minute.count : valuesPerKeyPerMinute;
  }

  /** Round-robin over keys, fewest recent values first, until the budget or the keys' room is spent. */
  private choose(candidates: Candidate[], budget: number, now: number): Candidate[] {
    const byKey = new Map<string, Candidate[]>();
    for (const candidate of candidates) {
      const key = `${candidate.projectId}\u0000${candidate.key}`;
      const list = byKey.get(key) ?? [];
      list.push(candidate);
      byKey.set(key, list);
    }
    const keysInOrder = [...byKey.keys()].sort(
      (a, b) => (this.valuesPerKey.get(a) ?? 0) - (this.valuesPerKey.get(b) ?? 0),
    );
    const room = new Map(keysInOrder.map((key) => [key, this.roomThisMinute(key, now)]));
    const chosen: Candidate[] = [];
    for (let round = 0; chosen.length < budget; round++) {
      let any = false;
      for (const key of keysInOrder) {
        const candidate = byKey.get(key)?.[round];
        if (!candidate || round >= room.get(key)!) continue;
        any = true;
        chosen.push(candidate);
        if (chosen.length === budget) break;
      }
      if (!any) break;
    }
    return chosen;
  }

  private remember(candidate: Candidate, now: number): void {
    this.written.set(pairOf(candidate.projectId, candidate.key, candidate.value), now + rememberMs);
    const key = `${candidate.projectId}\u0000${candidate.key}`;
    this.valuesPerKey.set(key, (this.valuesPerKey.get(key) ?? 0) + 1);
    const minute = this.thisMinute.get(key);
    if (minute && minute.until > now) minute.count++;
    else this.thisMinute.set(key, { until: now + minuteMs, count: 1 });
  }
}

const pairOf = (projectId: number, key: string, value: string): string =>
  `${projectId}\u0000${key}\u0000${value}`;
