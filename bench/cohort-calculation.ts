import '../bin/local/quiet-sdk';
import { createHash, randomUUID } from 'node:crypto';
import type { DynaliteStore } from './support/dynalite-direct';
import { catchDynaliteStore, putDirectly } from './support/dynalite-direct';
import { startBenchFlock } from './support/local-flock';
import { benchSetting, report, round } from './lib';
import { environmentValue } from '../bin/environment';
import { calculateCohort } from '../functions/cohort_calculation/calculate';
import { countWindows } from '../functions/cohort_calculation/events';
import { itemsOfBatch } from '../functions/consumer/store';
import { forEachLimited } from '../functions/shared/concurrency';
import type { CohortRecord } from '../functions/shared/db/cohorts';
import { getCohort } from '../functions/shared/db/cohorts';
import {
  listingShardChunks,
  livePersonsOf,
  personListingItem,
  personListingPartitions,
} from '../functions/shared/db/person-listing';
import { toPersonItem } from '../functions/shared/db/persons';
import { windowsByEvent } from '../functions/shared/domain/cohorts/behavioral';
import { leavesOf } from '../functions/shared/domain/cohorts/filters';
import type { StoredEvent } from '../functions/shared/domain/event';
import type { PropertyGroup } from '../functions/shared/domain/flags';
import type { Person } from '../functions/shared/domain/persons';

/**
 * Cohort calculation at scale: BENCH_PERSONS persons (100,000) and BENCH_EVENTS events
 * (200,000, all of the event a behavioural cohort names, within its window) stored with the
 * consumer's own item layout, against `npm start`'s emulators. The seed is put straight into the
 * emulator's store (`support/dynalite-direct.ts`: the items and index entries a BatchWriteItem leaves,
 * in under a fifth of the CPU a DynamoDB client took); everything measured reads through the emulator
 * over HTTP, as the functions do. Figures, each measured in this run:
 * - the first calculation of a property cohort (half the persons), a `performed_event` cohort (a
 *   third) and a cohort of every person (the most members to write), as a ratio to the floor:
 *   reading the same persons (and events) once with the same reads, nothing matched or written; and
 *   the unchanged recalculation's ratio; and the largest four-level cohort graph the write cap allows
 *   (pro plan persons: half); with the membership items (member pages) each calculation wrote;
 * - a second calculation with nothing changed: membership items written, as a share of the members;
 * - `/cohorts/:id/persons/` first-page p50 at 100k members against a 1k-member cohort (when the
 *   every-person cohort runs).
 * `BENCH_COHORTS` (a comma-separated list of `property`, `performed_event`, `every-person`, `graph`)
 * runs only those kinds, so each can be measured on its own.
 * Each calculation ratio is of wall times (the target's), with the same ratio of this process's CPU
 * time beside it (the emulator runs in it): on a machine other work keeps busy, the steadier one.
 * Targets: ratio ≤ 2.0; ≤ 1% written; page ratio ≤ 1.5.
 *
 * A short run (BENCH_SHORT: 2,000 persons, about 125 a shard) measures something else: each
 * calculation's fixed costs (the project's cohorts read, per shard a members Query and a write call
 * of its own, the first matching of a new tree shape by the JIT) against a floor of a few dozen
 * reads, so every cohort kind, not only the graph, reads 1.5–4.8 there. Only the full run amortises
 * them as a real project's calculation does.
 */
const persons = benchSetting('BENCH_PERSONS', 100_000, 2_000);
const events = benchSetting('BENCH_EVENTS', 200_000, 4_000);
const event = 'purchase';
const samples = 30;
const kindsRun = (environmentValue('BENCH_COHORTS') ?? 'property,performed_event,every-person,graph').split(
  ',',
);

const uuidOf = (i: number): string => {
  const hex = createHash('sha256').update(`bench-person-${i}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

function personAt(i: number): Person {
  const createdAt = new Date(Date.now() - 10 * 86_400_000 + i).toISOString();
  return {
    uuid: uuidOf(i),
    createdAt,
    isIdentified: true,
    distinctIds: [`user-${i}`],
    version: 1,
    // Every hundredth person is in "bucket 0": the 1k-member cohort.
    properties: { plan: i % 2 ? 'pro' : 'free', email: `user-${i}@example.com`, bucket: i % 100 },
    propertyStamps: {},
    unsetTimes: {},
  };
}

function eventAt(i: number, projectId: number): StoredEvent {
  return {
    uuid: randomUUID(),
    projectId,
    event,
    // A third of the persons buy, some of them many times.
    distinctId: `user-${(i * 7919) % Math.ceil(persons / 3)}`,
    properties: { $current_url: `https://example.com/p/${i % 500}`, amount: i % 90 },
    timestamp: new Date(
      Date.now() - 3 * 86_400_000 + Math.floor((i / events) * 2 * 86_400_000),
    ).toISOString(),
    elementsChain: '',
    createdAt: new Date().toISOString(),
  };
}

/** The persons and events, put straight into the emulator's store (see bench/support/dynalite-direct.ts). */
async function seed(store: DynaliteStore, tables: { main: string; events: string }, projectId: number) {
  for (let start = 0; start < persons; start += 5_000) {
    const items: Record<string, unknown>[] = [];
    for (let i = start; i < Math.min(persons, start + 5_000); i++) {
      const person = personAt(i);
      items.push({ ...toPersonItem(projectId, person) }, personListingItem(projectId, person));
    }
    await putDirectly(store, tables.main, items);
  }
  for (let start = 0; start < events; start += 1_000) {
    const batch = Array.from({ length: Math.min(1_000, events - start) }, (_, k) =>
      eventAt(start + k, projectId),
    );
    const puts = itemsOfBatch([{ messageId: randomUUID(), projectId, events: batch }], randomUUID());
    await putDirectly(
      store,
      tables.events,
      puts.map((put) => put.item),
    );
  }
}

/** The floor: the calculation's own reads of every person (and of the events), nothing else. */
async function readOnce(tables: { main: string; events: string }, cohort: CohortRecord): Promise<void> {
  const projectId = cohort.team_id;
  const tree = (cohort.filters as { properties: PropertyGroup }).properties;
  await Promise.all([
    forEachLimited(personListingPartitions(projectId), 4, async (partition) => {
      for await (const uuids of listingShardChunks(tables.main, partition, 500))
        await livePersonsOf(tables.main, projectId, uuids);
    }),
    countWindows(
      tables.events,
      projectId,
      windowsByEvent([tree], leavesOf, new Date()),
      Number.MAX_SAFE_INTEGER,
    ),
  ]);
}

/** Wall and CPU milliseconds of `run` (CPU: this process's, the emulator's included, as it runs here). */
async function measured<T>(run: () => Promise<T>): Promise<{ result: T; wall: number; cpu: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await run();
  const used = process.cpuUsage(cpu);
  return { result, wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
}

async function pageP50(url: string, key: string, members: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples + 5; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as { results: unknown[] };
    if (response.status !== 200 || body.results.length !== Math.min(100, members))
      throw new Error(`unexpected page: ${response.status} ${body.results.length}`);
    if (i >= 5) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function main(): Promise<void> {
  const { started: bench, store } = await catchDynaliteStore(() => startBenchFlock({ cohortIntervalMs: 0 }));
  const { flock } = bench;
  const { apiUrl, projectId, personalApiKey } = flock.credentials;
  const tables = { main: flock.endpoints.tables.main, events: flock.endpoints.tables.events };
  const seeded = performance.now();
  await seed(store, tables, projectId);
  const seedSeconds = (performance.now() - seeded) / 1000;

  const create = async (name: string, values: unknown[]): Promise<CohortRecord> => {
    const response = await fetch(`${apiUrl}/api/projects/${projectId}/cohorts/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${personalApiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, filters: { properties: { type: 'AND', values } } }),
    });
    const body = (await response.json()) as { id: number };
    if (response.status !== 201) throw new Error(`cohort not created: ${JSON.stringify(body)}`);
    return (await getCohort(tables.main, projectId, body.id, true))!;
  };
  const property = await create('pro plan', [
    { type: 'person', key: 'plan', value: 'pro', operator: 'exact' },
    { type: 'person', key: 'email', value: '@example.com', operator: 'icontains' },
  ]);
  const everyone = await create('everyone with an email', [
    { type: 'person', key: 'email', value: '@example.com', operator: 'icontains' },
    { type: 'person', key: 'plan', operator: 'is_set' },
  ]);
  const behavioural = await create('purchasers', [
    {
      type: 'behavioral',
      key: event,
      value: 'performed_event',
      event_type: 'events',
      time_value: 7,
      time_interval: 'day',
    },
  ]);
  // The largest four-level graph the write cap allows (as in bench/decide.ts): 75 person filters, then
  // three levels of 5 references to the level below, 9,686 filters and groups written out in place.
  const kinds = [
    { type: 'person', key: 'email', value: '@example.com', operator: 'icontains' },
    { type: 'person', key: 'plan', value: ['pro'], operator: 'exact' },
    { type: 'person', key: 'bucket', operator: 'is_set' },
  ];
  let graph = await create(
    'graph L1',
    Array.from({ length: 75 }, (_, n) => kinds[n % 3]),
  );
  for (let level = 2; level <= 4; level++)
    graph = await create(
      `graph L${level}`,
      Array.from({ length: 5 }, () => ({ type: 'cohort', key: 'id', value: graph.id })),
    );
  const small = await create('bucket 0', [{ type: 'person', key: 'bucket', value: 0, operator: 'exact' }]);
  const limits = { maxEvents: Number.MAX_SAFE_INTEGER, deadline: Number.POSITIVE_INFINITY };
  // Warm up (JIT, the emulator's caches) so neither side of the first ratio pays for it.
  await readOnce(tables, behavioural);

  const figures: Record<string, number | string> = { 'persons / events seeded': `${persons} / ${events}` };
  figures['seed seconds'] = round(seedSeconds, 1);
  const ratios: number[] = [];
  let mostWrittenShare = 0;
  for (const [kind, name, cohort] of [
    ['property', 'property cohort', property],
    ['performed_event', 'performed_event cohort', behavioural],
    ['every-person', 'every-person cohort', everyone],
    ['graph', '4-level cohort graph', graph],
  ] as const) {
    if (!kindsRun.includes(kind)) continue;
    const floor = await measured(() => readOnce(tables, cohort));
    const first = await measured(() => calculateCohort(tables, cohort, limits));
    const again = await measured(() => calculateCohort(tables, cohort, limits));
    figures[`${name}: members`] = first.result.count;
    figures[`${name}: floor / calculation ms`] = `${Math.round(floor.wall)} / ${Math.round(first.wall)}`;
    figures[`${name}: calculation / floor`] = round(first.wall / floor.wall);
    ratios.push(round(first.wall / floor.wall));
    // CPU time is less exposed than wall time to other work on a shared machine.
    figures[`${name}: CPU calculation / floor`] = round(first.cpu / floor.cpu);
    figures[`${name}: membership items written`] = first.result.itemsWritten;
    figures[`${name}: unchanged recalculation / floor`] = round(again.wall / floor.wall);
    // Items (member pages) written, and members changed: an unchanged recalculation writes neither.
    const written = Math.max(again.result.itemsWritten, again.result.added + again.result.removed);
    mostWrittenShare = Math.max(mostWrittenShare, written / Math.max(1, again.result.count));
    figures[`${name}: unchanged recalculation writes`] =
      `${written} of ${again.result.count} (${round((100 * written) / Math.max(1, again.result.count))}%)`;
  }
  let pageRatio = 0;
  if (kindsRun.includes('every-person')) {
    await calculateCohort(tables, small, limits);
    const pageOf = (cohort: CohortRecord) =>
      `${apiUrl}/api/projects/${projectId}/cohorts/${cohort.id}/persons/?limit=100`;
    const smallPage = await pageP50(pageOf(small), personalApiKey, persons / 100);
    const largePage = await pageP50(pageOf(everyone), personalApiKey, persons);
    figures[`/persons/ page p50 ms, ${persons / 100} / ${persons} members`] =
      `${round(smallPage)} / ${round(largePage)}`;
    pageRatio = round(largePage / smallPage);
    figures['/persons/ page ratio'] = pageRatio;
  }

  report(
    'cohort calculation: persons and events read once vs calculated',
    figures,
    'calculation / floor ≤ 2.0, unchanged recalculation ≤ 1% written, page ratio ≤ 1.5',
    {
      figure: `calculation / floor ${ratios.join(', ')}; unchanged recalculation ${round(100 * mostWrittenShare)}% written; page ratio ${pageRatio}`,
      met: ratios.every((ratio) => ratio <= 2) && mostWrittenShare <= 0.01 && pageRatio <= 1.5,
    },
  );
  await bench.stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
