/**
 * How far one actor got through a funnel, from their events in time order: PostHog's funnel UDF
 * (funnel-udf/src/steps.rs for ordered and strict funnels), re-stated in 0-based steps.
 *
 * Every step-0 event opens an attempt. An attempt at step k-1 moves to step k on the first step-k
 * event within the conversion window of its step-0 event; each step remembers only the latest
 * attempt that reached it. In a strict funnel any event that is not step k clears step k. An
 * exclusion event within the window of an attempt that reached `funnelFromStep` but not yet
 * `funnelToStep` excludes that attempt; the actor keeps the attempt that got furthest, and is left
 * out altogether when that attempt is excluded. Unordered funnels count the distinct steps done
 * within the window of any step event, the best window winning.
 */

export interface FunnelEvent {
  /** Seconds since the epoch. */
  readonly time: number;
  readonly uuid: string;
  /** Bit k: the event is step k. */
  readonly steps: number;
  /** Bit e: the event is exclusion e. */
  readonly exclusions: number;
}

export interface FunnelExclusionSteps {
  readonly from: number;
  readonly to: number;
}

export interface FunnelSpec {
  readonly steps: number;
  readonly windowSeconds: number;
  readonly order: 'ordered' | 'strict' | 'unordered';
  readonly exclusions: readonly FunnelExclusionSteps[];
}

/** The furthest step reached (0-based), and the seconds between consecutive steps of that attempt. */
export interface FunnelOutcome {
  readonly reached: number;
  readonly timings: readonly number[];
}

interface Attempt {
  readonly start: number;
  excluded: boolean;
  readonly times: readonly number[];
  readonly uuids: readonly string[];
}

const has = (mask: number, bit: number): boolean => (mask & (1 << bit)) !== 0;

class OrderedWalk {
  /** The latest attempt that reached each step. */
  private readonly entered: (Attempt | null)[];
  private best: { step: number; attempt: Attempt | null } = { step: -1, attempt: null };

  constructor(private readonly spec: FunnelSpec) {
    this.entered = Array.from({ length: spec.steps }, () => null);
  }

  get done(): boolean {
    return this.entered[this.spec.steps - 1] !== null;
  }

  private inWindow(attempt: Attempt, time: number): boolean {
    return time - attempt.start <= this.spec.windowSeconds;
  }

  private exclude(step: number, time: number): void {
    const attempt = this.entered[step];
    if (!attempt || !this.inWindow(attempt, time)) return;
    if (this.entered[step + 1]?.start === attempt.start || attempt.excluded) return;
    attempt.excluded = true;
    if (this.best.step === step && this.best.attempt && this.inWindow(this.best.attempt, time))
      this.best.attempt.excluded = true;
  }

  private advance(step: number, event: FunnelEvent, several: boolean): void {
    const previous: Attempt | null =
      step === 0
        ? { start: event.time, excluded: false, times: [], uuids: [] }
        : (this.entered[step - 1] ?? null);
    if (!previous || !this.inWindow(previous, event.time)) return;
    if (this.entered[step]?.start === previous.start) return; // this attempt already reached the step
    if (several && previous.uuids.includes(event.uuid)) return; // one event is one step of an attempt
    const next: Attempt = {
      start: previous.start,
      excluded: previous.excluded,
      times: [...previous.times, event.time],
      uuids: [...previous.uuids, event.uuid],
    };
    if (!previous.excluded) this.entered[step] = next;
    if (step > this.best.step || (step === this.best.step && this.best.attempt?.excluded))
      this.best = { step, attempt: { ...next } };
  }

  /** One event; `several` when it shares its time with events of other steps (no strict clearing). */
  process(event: FunnelEvent, several: boolean): void {
    this.spec.exclusions.forEach((exclusion, index) => {
      if (!has(event.exclusions, index)) return;
      for (let step = exclusion.to - 1; step >= exclusion.from; step--) this.exclude(step, event.time);
    });
    for (let step = this.spec.steps - 1; step >= 0; step--)
      if (has(event.steps, step)) this.advance(step, event, several);
    if (!several && this.spec.order === 'strict')
      for (let step = 0; step < this.spec.steps; step++)
        if (!has(event.steps, step)) this.entered[step] = null;
  }

  outcome(): FunnelOutcome | null {
    const { step, attempt } = this.best;
    if (!attempt) return { reached: -1, timings: [] };
    if (attempt.excluded) return null;
    return {
      reached: step,
      timings: attempt.times.slice(1).map((time, index) => time - attempt.times[index]!),
    };
  }
}

/** Events of one timestamp: one by one when they are the same steps, else step by step (PostHog's rule). */
function* byTimestamp(
  events: readonly FunnelEvent[],
): Generator<{ events: FunnelEvent[]; several: boolean }> {
  for (let start = 0; start < events.length;) {
    let end = start + 1;
    while (end < events.length && events[end]!.time === events[start]!.time) end++;
    const group = events.slice(start, end);
    start = end;
    if (
      group.every((event) => event.steps === group[0]!.steps && event.exclusions === group[0]!.exclusions)
    ) {
      yield { events: group, several: false };
      continue;
    }
    const split = group.flatMap((event) =>
      Array.from({ length: 31 }, (_, step) => step)
        .filter((step) => has(event.steps, step))
        .map((step) => ({ ...event, steps: 1 << step, exclusions: 0, step })),
    );
    split.sort((a, b) => a.step - b.step);
    yield { events: split, several: true };
  }
}

function orderedOutcome(spec: FunnelSpec, events: readonly FunnelEvent[]): FunnelOutcome | null {
  const walk = new OrderedWalk(spec);
  for (const group of byTimestamp(events)) {
    for (const event of group.events) walk.process(event, group.several);
    if (walk.done) break;
  }
  return walk.outcome();
}

/**
 * Unordered: for each step event as a start, the distinct steps within its window (a sliding
 * window, linear in the events); an attempt with an exclusion event in its window does not count.
 */
function unorderedOutcome(spec: FunnelSpec, events: readonly FunnelEvent[]): FunnelOutcome | null {
  const counts = new Array<number>(spec.steps).fill(0);
  let distinct = 0;
  let exclusionsInWindow = 0;
  let end = 0;
  let best: { start: number; reached: number } | null = null;
  let excludedOnly = false;
  for (let start = 0; start < events.length; start++) {
    const first = events[start]!;
    while (end < events.length && events[end]!.time - first.time <= spec.windowSeconds) {
      const event = events[end++]!;
      for (let step = 0; step < spec.steps; step++) {
        if (!has(event.steps, step)) continue;
        if (counts[step] === 0) distinct++;
        counts[step] = counts[step]! + 1;
      }
      if (event.exclusions !== 0) exclusionsInWindow++;
    }
    if (first.steps !== 0) {
      if (exclusionsInWindow > 0) excludedOnly ||= best === null;
      else if (distinct - 1 > (best?.reached ?? -1)) best = { start, reached: distinct - 1 };
    }
    for (let step = 0; step < spec.steps; step++) {
      if (!has(first.steps, step)) continue;
      counts[step] = counts[step]! - 1;
      if (counts[step] === 0) distinct--;
    }
    if (first.exclusions !== 0) exclusionsInWindow--;
  }
  if (!best) return excludedOnly ? null : { reached: -1, timings: [] };
  const firstTimes = new Map<number, number>();
  for (let index = best.start; index < events.length; index++) {
    const event = events[index]!;
    if (event.time - events[best.start]!.time > spec.windowSeconds) break;
    for (let step = 0; step < spec.steps; step++)
      if (has(event.steps, step) && !firstTimes.has(step)) firstTimes.set(step, event.time);
  }
  const times = [...firstTimes.values()].sort((a, b) => a - b);
  return { reached: best.reached, timings: times.slice(1).map((time, index) => time - times[index]!) };
}

/** One actor's outcome, from their events sorted by time; null when the actor is excluded. */
export function funnelOutcome(spec: FunnelSpec, events: readonly FunnelEvent[]): FunnelOutcome | null {
  return spec.order === 'unordered' ? unorderedOutcome(spec, events) : orderedOutcome(spec, events);
}
