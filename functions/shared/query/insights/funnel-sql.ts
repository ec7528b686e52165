import type { FunnelSpec } from './funnel-walk';

/**
 * The ordered and strict funnel walk (./funnel-walk.ts, PostHog's funnel UDF: funnel-udf/src/steps.rs)
 * in DuckDB SQL, so that no event leaves the database: each actor's events become a list of
 * operations in the walk's order, folded by `list_reduce` over the walk's state, one actor per row.
 *
 * The state holds, per step, the latest attempt that reached it (`e`: its start, whether an exclusion
 * voided it, its step times and event ids), the best attempt so far (`bs`, `ba`) and when the last
 * step was first reached (`dt`: the walk stops after that timestamp). The operations, per event:
 * - `k` 1, exclude step `st` (an exclusion event: for each exclusion it is, its steps from
 *   `funnelToStep - 1` down to `funnelFromStep`), then
 * - `k` 0, advance to step `st` (each step the event is, from the last step down), then
 * - `k` 2, in a strict funnel, clear every step the event is not (`m`, the event's step bits).
 * Events sharing a timestamp with events of other steps or exclusions (`sev`) are the walk's
 * "several": only their advances, step by step, each step's events in time order, and an event is
 * never two steps of one attempt.
 *
 * Timestamps are microseconds; the window is compared in whole microseconds.
 */

/**
 * `actor`, `breakdown` and the walk of each row of `from`, the walk computed once: as an aggregate's
 * input, so that no filter on its fields is pushed down into copies of it.
 */
const onceSql = (walk: string, from: string): string =>
  `SELECT actor, any_value(breakdown) AS breakdown, any_value(${walk}) AS walk FROM ${from} GROUP BY actor`;

const attemptType = 'STRUCT(s BIGINT, x BOOLEAN, t BIGINT[], u UUID[])';
const stateType =
  `STRUCT(e ${attemptType}[], bs INTEGER, ba ${attemptType}, dt BIGINT, ` +
  'k TINYINT, st INTEGER, tm BIGINT, id UUID, sev BOOLEAN, m BIGINT)';

/** A struct literal of `attemptType` from its parts. */
const attempt = (s: string, x: string, t: string, u: string): string =>
  `{'s': ${s}, 'x': ${x}, 't': ${t}, 'u': ${u}}`;

/** The state with some fields replaced (the operation fields stay null). */
function state(acc: string, fields: Partial<Record<'e' | 'bs' | 'ba' | 'dt', string>>): string {
  const value = (name: 'e' | 'bs' | 'ba' | 'dt'): string => fields[name] ?? `${acc}.${name}`;
  return (
    `{'e': ${value('e')}, 'bs': ${value('bs')}, 'ba': ${value('ba')}, 'dt': ${value('dt')}, ` +
    `'k': NULL, 'st': NULL, 'tm': NULL, 'id': NULL, 'sev': NULL, 'm': NULL}`
  );
}

/** `list` with its element at 1-based `index` replaced by `value`. */
const replaced = (list: string, index: string, value: string): string =>
  `list_transform(${list}, lambda a, i: CASE WHEN i = ${index} THEN ${value} ELSE a END)`;

/**
 * The walk's `advance` to step `st`: the attempt at the previous step takes this event (`previous`:
 * a struct of the state, or a new attempt for step 0).
 */
function advanceSql(spec: FunnelSpec, window: string, previous: string): string {
  const current = 'acc.e[x.st + 1]';
  const skip =
    `${previous} IS NULL OR x.tm - ${previous}.s > ${window} ` +
    `OR (${current} IS NOT NULL AND ${current}.s = ${previous}.s) ` +
    `OR (x.sev AND list_contains(${previous}.u, x.id))`;
  const next = attempt(
    `${previous}.s`,
    `${previous}.x`,
    `list_append(${previous}.t, x.tm)`,
    `list_append(${previous}.u, x.id)`,
  );
  const better = '(x.st > acc.bs OR (x.st = acc.bs AND acc.ba.x))';
  return `CASE WHEN ${skip} THEN acc ELSE ${state('acc', {
    e: `CASE WHEN ${previous}.x THEN acc.e ELSE ${replaced('acc.e', 'x.st + 1', next)} END`,
    bs: `CASE WHEN ${better} THEN x.st ELSE acc.bs END`,
    ba: `CASE WHEN ${better} THEN ${next} ELSE acc.ba END`,
    dt: `CASE WHEN acc.dt IS NULL AND x.st = ${spec.steps - 1} AND NOT ${previous}.x THEN x.tm ELSE acc.dt END`,
  })} END`;
}

/** A new attempt at step 0: a step-0 event starts it. */
const newAttempt = attempt('x.tm', 'false', '[]::BIGINT[]', '[]::UUID[]');

/** The walk's `exclude`: the latest attempt at step `st`, in its window and not further, is voided. */
function excludeSql(window: string): string {
  const entered = 'acc.e[x.st + 1]';
  const further = 'acc.e[x.st + 2]';
  const skip =
    `${entered} IS NULL OR x.tm - ${entered}.s > ${window} ` +
    `OR (${further} IS NOT NULL AND ${further}.s = ${entered}.s) OR ${entered}.x`;
  const voided = (value: string): string => attempt(`${value}.s`, 'true', `${value}.t`, `${value}.u`);
  return `CASE WHEN ${skip} THEN acc ELSE ${state('acc', {
    e: replaced('acc.e', 'x.st + 1', voided('a')),
    ba: `CASE WHEN acc.bs = x.st AND acc.ba IS NOT NULL AND x.tm - acc.ba.s <= ${window} THEN ${voided('acc.ba')} ELSE acc.ba END`,
  })} END`;
}

/** A strict funnel's clearing: every step the event is not loses its attempt. */
const clearSql = (): string =>
  state('acc', {
    e: 'list_transform(acc.e, lambda a, i: CASE WHEN (x.m >> (i - 1)) & 1 = 1 THEN a ELSE NULL END)',
  });

/** One operation as a narrow struct: kind, step, step bits, and its order among the event's. */
const operation = (kind: number, step: number, order: number): string =>
  `{'k': ${kind}, 'st': ${step}, 'p': ${order}}`;

const bit = (mask: string, index: number): string => `(${mask} & ${2 ** index}) <> 0`;

/** The operations of an event that is alone at its timestamp (or among events just like it). */
function operationsSql(spec: FunnelSpec): string {
  const parts: string[] = [];
  let order = 0;
  spec.exclusions.forEach((exclusion, index) => {
    const steps: string[] = [];
    for (let step = exclusion.to - 1; step >= exclusion.from; step--) steps.push(operation(1, step, order++));
    parts.push(`CASE WHEN ${bit('exclusions', index)} THEN [${steps.join(', ')}] ELSE [] END`);
  });
  for (let step = spec.steps - 1; step >= 0; step--)
    parts.push(`CASE WHEN ${bit('steps', step)} THEN [${operation(0, step, order++)}] ELSE [] END`);
  if (spec.order === 'strict') parts.push(`[${operation(2, 0, order++)}]`);
  return parts.length === 1 ? parts[0]! : `flatten([${parts.join(', ')}])`;
}

/** The advances of an event among events of other steps at its timestamp, step by step. */
function severalSql(spec: FunnelSpec): string {
  const parts = Array.from(
    { length: spec.steps },
    (_, step) => `CASE WHEN ${bit('steps', step)} THEN [${operation(0, step, 0)}] ELSE [] END`,
  );
  return `flatten([${parts.join(', ')}])`;
}

/** The full walk of every actor of `events` (the rows `funnelActorsSql` answers). */
function walkedActorsSql(spec: FunnelSpec, events: string, touch: Touch): string {
  const window = `${BigInt(spec.windowSeconds) * 1_000_000n}::BIGINT`;
  const key = `steps::BIGINT * ${2 ** 20} + exclusions`;
  const wide =
    `list_transform(ops, lambda o: {'e': NULL, 'bs': NULL, 'ba': NULL, 'dt': NULL, 'k': o.k, 'st': o.st, ` +
    `'tm': o.tm, 'id': o.id, 'sev': o.sev, 'm': o.m}::${stateType})`;
  const initial = `{'e': [${Array.from({ length: spec.steps }, () => 'NULL').join(', ')}], 'bs': -1, 'ba': NULL, 'dt': NULL, 'k': NULL, 'st': NULL, 'tm': NULL, 'id': NULL, 'sev': NULL, 'm': NULL}::${stateType}`;
  const step =
    `lambda acc, x: CASE WHEN acc.dt IS NOT NULL AND x.tm > acc.dt THEN acc ` +
    `WHEN x.k = 0 AND x.st = 0 THEN ${advanceSql(spec, window, newAttempt)} ` +
    `WHEN x.k = 0 THEN ${advanceSql(spec, window, 'acc.e[x.st]')} WHEN x.k = 1 THEN ${excludeSql(window)} ELSE ${clearSql()} END`;
  return (
    `WITH grouped AS (SELECT *, min(${key}) OVER same <> max(${key}) OVER same AS sev FROM (${events}) ` +
    `WINDOW same AS (PARTITION BY actor, t)), ` +
    `operations AS (SELECT actor, t, u, sev, steps, breakdown, unnest(CASE WHEN sev THEN ${severalSql(spec)} ELSE ${operationsSql(spec)} END) AS op FROM grouped), ` +
    `actors AS (SELECT actor, ${touchSql(touch)} AS breakdown, ` +
    `list_sort(list({'tm': t, 'o': CASE WHEN sev THEN op.st ELSE 0 END, 'id': u, 'p': op.p, 'k': op.k, 'st': op.st, 'sev': sev, 'm': steps})) AS ops ` +
    `FROM operations GROUP BY actor), ` +
    `walked AS (${onceSql(`list_reduce(${wide}, ${step}, ${initial})`, 'actors')}) ` +
    `SELECT actor, walk.bs AS reached, walk.ba.t AS times, coalesce(breakdown, '') AS breakdown FROM walked ` +
    `WHERE walk.ba IS NOT NULL AND NOT walk.ba.x`
  );
}

/** Which breakdown value an actor takes: of its first or last step event with one; null without a breakdown. */
export type Touch = 'first' | 'last' | null;

/** The actor's breakdown value: its first (last) step event's with one, in the walk's order (time, UUID). */
const touchSql = (touch: Touch): string =>
  touch === null
    ? 'NULL::VARCHAR'
    : `${touch === 'last' ? 'arg_max' : 'arg_min'}(breakdown, {'t': t, 'u': u}) FILTER (WHERE steps <> 0 AND breakdown <> '')`;

/** The fast walk's step code of an event that needs the full walk (see `fastActorsSql`). */
const fullWalk = 31;

/**
 * The walk of an ordered funnel for an actor whose events are each one step, no two at one time, and
 * none an exclusion: then no attempt is ever voided, ties never arise and an event takes one step, so
 * the state is flat (per step, the times of its latest attempt; the best attempt's times; the best
 * step; when the last step was reached; the last event's time). Each event is one BIGINT, its time
 * (micros) × 32 + its step, so that the actor's list sorts as plain numbers. An event that is several
 * steps or an exclusion (step code 31), or a second event at one time, marks the actor (`cx`) for the
 * full walk instead.
 */
function fastActorsSql(spec: FunnelSpec, events: string, touch: Touch, window: string): string {
  const n = spec.steps;
  const steps = Array.from({ length: n }, (_, step) => step);
  const entered = (step: number, index: number): string => `e${step}_${index}`;
  const fields = [
    ...steps.flatMap((step) => steps.slice(0, step + 1).map((index) => entered(step, index))),
    ...steps.map((index) => `b${index}`),
    'bs',
    'dt',
    'lt',
  ];
  const type = `STRUCT(${fields.map((name) => `${name} ${name === 'bs' ? 'INTEGER' : 'BIGINT'}`).join(', ')}, cx BOOLEAN)`;
  const struct = (values: Readonly<Record<string, string>>): string =>
    `{${[...fields, 'cx'].map((name) => `'${name}': ${values[name] ?? `acc.${name}`}`).join(', ')}}`;
  /** Step `step` taken at x.lt by the attempt at the previous step (a new attempt for step 0). */
  const advance = (step: number): string => {
    const times = steps
      .slice(0, step + 1)
      .map((index) => (index === step ? 'x.lt' : `acc.${entered(step - 1, index)}`));
    const update: Record<string, string> = { lt: 'x.lt' };
    times.forEach((time, index) => (update[entered(step, index)] = time));
    const better: Record<string, string> = { ...update, bs: `${step}` };
    times.forEach((time, index) => (better[`b${index}`] = time));
    if (step === n - 1) better.dt = 'x.lt';
    const taken = `CASE WHEN acc.bs < ${step} THEN ${struct(better)} ELSE ${struct(update)} END`;
    if (step === 0) return taken;
    const start = `acc.${entered(step - 1, 0)}`;
    const skip = `${start} IS NULL OR x.lt - ${start} > ${window} OR acc.${entered(step, 0)} IS NOT DISTINCT FROM ${start}`;
    return `CASE WHEN ${skip} THEN ${struct({ lt: 'x.lt' })} ELSE ${taken} END`;
  };
  const reduce =
    `lambda acc, x: CASE WHEN acc.cx OR (acc.dt IS NOT NULL AND x.lt > acc.dt) THEN acc ` +
    `WHEN x.bs = ${fullWalk} OR x.lt = acc.lt THEN ${struct({ cx: 'true' })} ` +
    steps.map((step) => `WHEN x.bs = ${step} THEN ${advance(step)} `).join('') +
    'END';
  /** A struct of the state's type, its fields null but those given. */
  const only = (values: Readonly<Record<string, string>>): string =>
    `${struct({ ...Object.fromEntries(fields.map((name) => [name, 'NULL'])), ...values })}::${type}`;
  // An event: its time in `lt`, its step code in `bs`.
  const element = `lambda k: ${only({ lt: 'k >> 5', bs: '(k & 31)::INTEGER', cx: 'false' })}`;
  const initial = only({ bs: '-1', cx: 'false' });
  const code =
    `CASE WHEN exclusions <> 0 THEN ${fullWalk} ` +
    steps.map((step) => `WHEN steps = ${2 ** step} THEN ${step} `).join('') +
    `ELSE ${fullWalk} END`;
  return onceSql(
    `list_reduce(list_transform(keys, ${element}), ${reduce}, ${initial})`,
    `(SELECT actor, ${touchSql(touch)} AS breakdown, list_sort(list(t * 32 + ${code})) AS keys FROM (${events}) GROUP BY actor)`,
  );
}

/**
 * Per actor (`actor`): `reached` (the furthest step, 0-based; actors who never entered or whose best attempt
 * was voided are left out), `times` (that attempt's step times, micros) and `breakdown` (the first or
 * last non-empty breakdown value among the actor's step events). An ordered funnel walks most actors
 * the fast way, and only those it marks the full way; a strict funnel walks every actor the full way.
 * `events` is a query of the funnel's events, one row each: `actor`, `t` (epoch micros), `u` (its
 * UUID), `steps` and `exclusions` (bit k: the event is step k, exclusion k), `breakdown` (text).
 */
export function funnelActorsSql(spec: FunnelSpec, events: string, touch: Touch): string {
  if (spec.order === 'strict') return walkedActorsSql(spec, events, touch);
  const window = `${BigInt(spec.windowSeconds) * 1_000_000n}::BIGINT`;
  const times = `[${Array.from({ length: spec.steps }, (_, index) => `walk.b${index}`).join(', ')}]`;
  return (
    `WITH fast AS MATERIALIZED (${fastActorsSql(spec, events, touch, window)}) ` +
    `SELECT actor, walk.bs AS reached, list_slice(${times}, 1, walk.bs + 1) AS times, coalesce(breakdown, '') AS breakdown ` +
    `FROM fast WHERE NOT walk.cx AND walk.bs >= 0 UNION ALL SELECT * FROM (` +
    walkedActorsSql(
      spec,
      `SELECT * FROM (${events}) WHERE actor IN (SELECT actor FROM fast WHERE walk.cx)`,
      touch,
    ) +
    ')'
  );
}

/** One breakdown group's figures: actors per step, and conversion times (seconds) into each step. */
export interface FunnelGroup {
  /** The breakdown value, '' without a breakdown, null for the actors of the values past the limit. */
  readonly value: string | null;
  readonly counts: readonly number[];
  readonly averages: readonly (number | null)[];
  readonly medians: readonly (number | null)[];
}

/**
 * The figures per breakdown group from the actors' rows (`reached`, `times`, `breakdown`): the `limit`
 * values with the most actors (ties by value) each, the rest in one group (value null), in that
 * order. Conversion times count only those that took time (PostHog's `groupArrayIf(timings[i],
 * timings[i] > 0)`).
 */
export function funnelGroupsSql(steps: number, actors: string, limit: number): string {
  const figures: string[] = ['count(*)'];
  for (let step = 1; step < steps; step++) {
    const time = `(times[${step + 1}] - times[${step}]) / 1e6`;
    const reached = `reached >= ${step}`;
    figures.push(
      `count(*) FILTER (WHERE ${reached})`,
      `avg(${time}) FILTER (WHERE ${reached} AND ${time} > 0)`,
      `median(${time}) FILTER (WHERE ${reached} AND ${time} > 0)`,
    );
  }
  return (
    `WITH actors AS (${actors}), ` +
    `ranked AS (SELECT breakdown, row_number() OVER (ORDER BY count(*) DESC, breakdown) AS rank FROM actors GROUP BY breakdown) ` +
    `SELECT CASE WHEN rank <= ${limit} THEN breakdown END AS value, ${figures.join(', ')} ` +
    `FROM actors JOIN ranked USING (breakdown) GROUP BY 1 ORDER BY min(rank)`
  );
}
