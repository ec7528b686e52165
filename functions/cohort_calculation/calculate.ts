import {
  cohortMemberPartitions,
  membersOf,
  readAllMembers,
  readShardMembership,
  shardWrites,
  writeShard,
} from '../shared/db/cohort-members';
import type { CohortRecord } from '../shared/db/cohorts';
import { listCohorts } from '../shared/db/cohorts';
import { listingShardChunks, livePersonsOf, personListingPartitions } from '../shared/db/person-listing';
import { forEachLimited } from '../shared/concurrency';
import { satisfiesCount, windowKey, windowOf, windowsByEvent } from '../shared/domain/cohorts/behavioral';
import { leavesOf } from '../shared/domain/cohorts/filters';
import { CohortGraph } from '../shared/domain/cohorts/graph';
import { cohortEvaluationSteps } from '../shared/domain/cohorts/limits';
import { StepBudget } from '../shared/domain/flags/budget';
import type { CohortContext } from '../shared/domain/flags/cohorts';
import { valueTexts } from '../shared/domain/flags/value-texts';
import { matchPropertyGroup } from '../shared/domain/flags/cohorts';
import type { PropertyFilter, PropertyGroup } from '../shared/domain/flags/types';
import type { Person } from '../shared/domain/persons';
import type { WindowCounts } from './events';
import { countWindows } from './events';

/**
 * One calculation of a dynamic cohort (as PostHog's `posthog/tasks/calculate_cohort.py` runs it): every live person of the project is matched
 * against the cohort's tree with the flags' matcher (person properties, nested cohorts inline, static
 * cohorts by membership, behavioural leaves from counted events), and the stored membership is brought
 * in line by writing only the member pages whose members changed (db/cohort-members.ts). Persons and
 * members share their shards (keys.ts `personShard`), so the work goes shard by shard: memory holds
 * one shard's members at a time (of `shardConcurrency` shards).
 */

export interface CalculationLimits {
  /** Events the behavioural filters may read in one calculation. */
  readonly maxEvents: number;
  /** Stop with an error (counted like any failure) rather than run past this instant. */
  readonly deadline: number;
}

export interface CalculationResult {
  readonly count: number;
  readonly added: number;
  readonly removed: number;
  /** Membership items written: member pages put, and member pages and items deleted. */
  readonly itemsWritten: number;
  readonly personsRead: number;
  readonly eventsRead: number;
}

/** The calculation ran out of its function's time: it fails, and the next attempt starts afresh. */
export class CalculationTimeoutError extends Error {
  constructor() {
    super('The calculation did not finish within its time budget.');
    this.name = 'CalculationTimeoutError';
  }
}

/** Persons read and matched at once within a shard (BatchGetItem takes 100 keys a call). */
const personsPerChunk = 500;
/** Shards worked on at once. */
const shardConcurrency = 4;

export interface Matcher {
  readonly tree: PropertyGroup | undefined;
  readonly context: (person: Person) => CohortContext;
}

function matcherFor(
  cohort: CohortRecord,
  graph: CohortGraph,
  staticMembers: ReadonlyMap<string, ReadonlySet<string>>,
  counts: WindowCounts,
  now: Date,
): Matcher {
  const definitions = graph.definitionsFor([cohort.id]);
  const windowOfLeaf = new Map<PropertyFilter, string>();
  const countKey = (leaf: PropertyFilter): string => {
    let key = windowOfLeaf.get(leaf);
    if (key === undefined) windowOfLeaf.set(leaf, (key = windowKey(windowOf(leaf, now))));
    return key;
  };
  return {
    tree: definitions[String(cohort.id)],
    // Per person: each nested cohort matched once, within the evaluation's step budget.
    context: (person) => ({
      cohorts: definitions,
      personProperties: person.properties,
      now,
      memo: new Map(),
      // Each property value's derived texts once per person, however many filters name it.
      texts: valueTexts(),
      budget: new StepBudget(cohortEvaluationSteps),
      membership: (id) => staticMembers.get(id)?.has(person.uuid),
      behavioral: (leaf) => {
        const perId = counts.get(countKey(leaf));
        let count = 0;
        for (const distinctId of person.distinctIds) count += perId?.get(distinctId) ?? 0;
        return satisfiesCount(leaf, count);
      },
    }),
  };
}

/**
 * The persons of one chunk the cohort holds. The deadline is checked person by person: a chunk of a
 * heavy definition can take longer than whatever time is left when it starts.
 */
export function matchChunk(persons: Iterable<Person>, matcher: Matcher, deadline: number): string[] {
  const matched: string[] = [];
  for (const person of persons) {
    if (Date.now() > deadline) throw new CalculationTimeoutError();
    if (matchPropertyGroup(matcher.tree, matcher.context(person)).matches) matched.push(person.uuid);
  }
  return matched;
}

/** Calculates `cohort` (as claimed) and stores its membership; throws on any failure. */
export async function calculateCohort(
  tables: { readonly main: string; readonly events: string },
  cohort: CohortRecord,
  limits: CalculationLimits,
  now = new Date(),
): Promise<CalculationResult> {
  const projectId = cohort.team_id;
  const graph = new CohortGraph(await listCohorts(tables.main, projectId));
  const trees = Object.values(graph.definitionsFor([cohort.id]));
  const windows = windowsByEvent(trees, leavesOf, now);
  const staticIds = graph.staticAmong([cohort.id]);
  const [{ counts, eventsRead }, staticSets] = await Promise.all([
    countWindows(tables.events, projectId, windows, limits.maxEvents),
    Promise.all(staticIds.map((id) => readAllMembers(tables.main, projectId, id))),
  ]);
  const staticMembers = new Map(staticIds.map((id, n) => [String(id), staticSets[n]!]));
  const matcher = matcherFor(cohort, graph, staticMembers, counts, now);
  const checkTime = (): void => {
    if (Date.now() > limits.deadline) throw new CalculationTimeoutError();
  };

  const listing = personListingPartitions(projectId);
  const memberPartitions = cohortMemberPartitions(projectId, cohort.id);
  let count = 0;
  let added = 0;
  let removed = 0;
  let itemsWritten = 0;
  let personsRead = 0;
  await forEachLimited(
    listing.map((partition, shard) => ({ partition, members: memberPartitions[shard]! })),
    shardConcurrency,
    async (shard) => {
      const stored = await readShardMembership(tables.main, shard.members);
      const matched = new Set<string>();
      for await (const uuids of listingShardChunks(tables.main, shard.partition, personsPerChunk)) {
        checkTime();
        const persons = await livePersonsOf(tables.main, projectId, uuids);
        personsRead += persons.size;
        for (const uuid of matchChunk(persons.values(), matcher, limits.deadline)) matched.add(uuid);
      }
      // The shard's member pages whose members changed (those no longer matched: merged away,
      // changed, or gone from the listing), written once the shard is matched.
      const writes = shardWrites(shard.members, stored, matched);
      checkTime();
      await writeShard(tables.main, writes);
      const before = membersOf(stored);
      let joined = 0;
      for (const uuid of matched) if (!before.has(uuid)) joined++;
      count += matched.size;
      added += joined;
      removed += before.size - (matched.size - joined);
      itemsWritten += writes.puts.length + writes.deletes.length;
    },
  );
  return { count, added, removed, itemsWritten, personsRead, eventsRead };
}
