import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { type Touch, funnelActorsSql } from '../../../../functions/shared/query/insights/funnel-sql';
import {
  type FunnelEvent,
  type FunnelSpec,
  funnelOutcome,
} from '../../../../functions/shared/query/insights/funnel-walk';

/**
 * The funnel walk in SQL against the walk in JS (funnel-walk.ts, the oracle), actor by actor, over
 * random event sets: a few seconds of events so that timestamps tie, events that are several steps,
 * exclusions, events of no step (strict funnels), breakdown values, windows of a few seconds.
 */

interface RandomEvent extends FunnelEvent {
  readonly actor: string;
  readonly breakdown: string | null;
}

/** mulberry32: a seeded generator, so that a failing case can be replayed. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function randomCase(seed: number): { spec: FunnelSpec; events: RandomEvent[]; touch: Touch } {
  const random = generator(seed);
  const pick = (n: number): number => Math.floor(random() * n);
  const steps = 2 + pick(3);
  const exclusions = Array.from({ length: pick(3) }, () => {
    const from = pick(steps - 1);
    return { from, to: from + 1 + pick(steps - 1 - from) };
  });
  const spec: FunnelSpec = {
    steps,
    windowSeconds: 1 + pick(60),
    order: random() < 0.3 ? 'strict' : 'ordered',
    exclusions,
  };
  // A short span ties many timestamps (the full walk); a longer one leaves most actors untied (the fast walk).
  const span = random() < 0.5 ? 20 : 400;
  const events: RandomEvent[] = [];
  for (let actor = 0; actor < 40; actor++) {
    const count = pick(14);
    for (let index = 0; index < count; index++) {
      const roll = random();
      // Mostly one step; sometimes several steps, an exclusion, both, or nothing.
      const stepMask = roll < 0.75 ? 1 << pick(steps) : roll < 0.85 ? pick(2 ** steps) : 0;
      const exclusionMask = exclusions.length > 0 && random() < 0.2 ? pick(2 ** exclusions.length) : 0;
      const uuid = `0190a1b2-0000-7000-8000-${(pick(0xffffff) * 0x1000000 + events.length).toString(16).padStart(12, '0')}`;
      events.push({
        actor: `a${actor}`,
        time: 1_700_000_000 + pick(span),
        uuid,
        steps: stepMask,
        exclusions: exclusionMask,
        breakdown: [null, '', 'Chrome', 'Firefox'][pick(4)]!,
      });
    }
  }
  return { spec, events, touch: ([null, 'first', 'last'] as const)[pick(3)]! };
}

interface ActorRow {
  readonly reached: number;
  readonly timings: readonly number[];
  readonly breakdown: string;
}

/** As the funnel reads events: a strict funnel every event, else those of a step or an exclusion. */
const read = (spec: FunnelSpec, event: RandomEvent): boolean =>
  spec.order === 'strict' || event.steps !== 0 || event.exclusions !== 0;

/** The oracle: each actor's events read, in time and UUID order, through the JS walk. */
function expected(spec: FunnelSpec, events: readonly RandomEvent[], touch: Touch): Map<string, ActorRow> {
  const byActor = new Map<string, RandomEvent[]>();
  for (const event of events.filter((item) => read(spec, item)))
    byActor.set(event.actor, [...(byActor.get(event.actor) ?? []), event]);
  const rows = new Map<string, ActorRow>();
  for (const [actor, items] of byActor) {
    const sorted = [...items].sort(
      (a, b) => a.time - b.time || (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0),
    );
    const outcome = funnelOutcome(spec, sorted);
    if (!outcome || outcome.reached < 0) continue;
    const values = sorted
      .filter((event) => event.steps !== 0 && event.breakdown)
      .map((event) => event.breakdown!);
    const breakdown = touch === null ? '' : ((touch === 'first' ? values[0] : values.at(-1)) ?? '');
    rows.set(actor, { reached: outcome.reached, timings: outcome.timings, breakdown });
  }
  return rows;
}

const literal = (value: string | null): string => (value === null ? 'NULL' : `'${value}'`);

async function actual(
  connection: DuckDBConnection,
  spec: FunnelSpec,
  events: readonly RandomEvent[],
  touch: Touch,
): Promise<Map<string, ActorRow>> {
  const values = events
    .map(
      (event) =>
        `(${literal(event.actor)}, ${event.time * 1_000_000}::BIGINT, '${event.uuid}'::UUID, ${event.steps}, ` +
        `${event.exclusions}, ${literal(event.breakdown)}::VARCHAR)`,
    )
    .join(', ');
  const source = `SELECT * FROM (VALUES ${values}) AS e(actor, t, u, steps, exclusions, breakdown)`;
  // As the funnel reads them: a strict funnel every event, else those of a step or an exclusion.
  const read =
    spec.order === 'strict' ? source : `SELECT * FROM (${source}) WHERE steps <> 0 OR exclusions <> 0`;
  const reader = await connection.runAndReadAll(funnelActorsSql(spec, read, touch));
  const rows = new Map<string, ActorRow>();
  for (const [actor, reached, times, breakdown] of reader.getRowsJson()) {
    const micros = (times as string[]).map(Number);
    rows.set(actor as string, {
      reached: Number(reached),
      timings: micros.slice(1).map((time, index) => (time - micros[index]!) / 1e6),
      breakdown: breakdown as string,
    });
  }
  return rows;
}

let instance: DuckDBInstance;
let connection: DuckDBConnection;
beforeAll(async () => {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  connection = await instance.connect();
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

describe('the funnel walk in SQL', () => {
  it.each(Array.from({ length: 60 }, (_, seed) => seed + 1))(
    'walks each actor as the JS walk does (random case %i)',
    async (seed) => {
      const { spec, events, touch } = randomCase(seed);
      const sql = await actual(connection, spec, events, touch);
      const js = expected(spec, events, touch);
      expect(Object.fromEntries([...sql].sort())).toEqual(Object.fromEntries([...js].sort()));
    },
  );

  it('walks actors with ties, several steps and exclusions the full way, others the fast way, alike', async () => {
    // a: one event per time, one step each (the fast walk); b: two steps at one time (the full walk).
    const spec: FunnelSpec = { steps: 3, windowSeconds: 10, order: 'ordered', exclusions: [] };
    const event = (actor: string, time: number, step: number, index: number): RandomEvent => ({
      actor,
      time,
      uuid: `0190a1b2-0000-7000-8000-${String(index).padStart(12, '0')}`,
      steps: 1 << step,
      exclusions: 0,
      breakdown: null,
    });
    const events = [event('a', 1, 0, 1), event('a', 2, 1, 2), event('a', 4, 2, 3)];
    events.push(event('b', 1, 0, 4), event('b', 1, 1, 5), event('b', 3, 2, 6));
    const rows = await actual(connection, spec, events, null);
    expect(Object.fromEntries(rows)).toEqual({
      a: { reached: 2, timings: [1, 2], breakdown: '' },
      b: { reached: 2, timings: [0, 2], breakdown: '' },
    });
  });
});
