import type { FeatureFlagRecord } from '../shared/db/feature-flags';
import type { HashKeyOverrides } from '../shared/db/flag-overrides';
import { cohortsHolding } from '../shared/db/cohort-members';
import type { FlagEvaluationResult, PropertyBag } from '../shared/domain/flags';
import { evaluateFlags } from '../shared/domain/flags';
import { logger } from '../shared/logger';
import { hashKeyOverridesFor } from './continuity';
import type { FlagsRequest } from './flags-request';
import { needsStoredPerson } from './person-needs';
import { flagsPersonOf } from './person-read';
import { groupFlagKeys, groupPropertiesWithStored, storedGroupsWanted } from './stored-groups';
import type { ProjectFlags } from './project-flags';

/** The flags of one request, evaluated: in definition order, with their results by key. */
export interface RequestEvaluation {
  readonly flags: readonly FeatureFlagRecord[];
  readonly results: Readonly<Record<string, FlagEvaluationResult>>;
  readonly errorsWhileComputingFlags: boolean;
}

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly value: T };

/** Runs a read the request can do without: on failure it is logged and `fallback` stands in. */
async function attempt<T>(what: string, read: () => Promise<T>, fallback: T): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    logger.warn(`Flags evaluated without ${what}`, { error: error as Error });
    return { ok: false, value: fallback };
  }
}

interface StoredPerson {
  readonly properties: PropertyBag;
  /** Ids (as text) of the project's flag-named static cohorts the person belongs to. */
  readonly staticCohorts: ReadonlySet<string>;
}

const nobody: StoredPerson = { properties: {}, staticCohorts: new Set() };

/** The person's properties and, when flags name static cohorts, which of them hold the person. */
async function storedPerson(
  tableName: string,
  project: ProjectFlags,
  distinctId: string,
): Promise<StoredPerson> {
  const person = await flagsPersonOf(tableName, project.projectId, distinctId);
  if (!person) return nobody;
  const holding = await cohortsHolding(tableName, project.projectId, project.staticCohorts, person.uuid);
  return {
    properties: person.properties,
    staticCohorts: new Set([...holding].map(String)),
  };
}

/** A flag whose inputs could not be read: disabled, marked failed (posthog-js keeps its last value). */
function failedResult(key: string): FlagEvaluationResult {
  return {
    key,
    enabled: false,
    variant: null,
    payload: null,
    reason: { code: 'unknown', condition_index: null, description: null },
    failed: true,
  };
}

function selectFlags(
  project: ProjectFlags,
  flagKeys: readonly string[] | undefined,
): readonly FeatureFlagRecord[] {
  if (!flagKeys) return project.active;
  const wanted = new Set(flagKeys);
  return project.active.filter((flag) => wanted.has(flag.key));
}

/**
 * Every active flag of the project (or those the request names) for the request's person (as
 * `posthog/api/decide.py` evaluates them): person properties from the person store overlaid by the request's, read only when some flag
 * needs a property the request did not send; group flags from the request's groups; continuity flags
 * with their hash-key overrides. A read that fails marks the flags depending on it as failed and sets
 * `errorsWhileComputingFlags`; the request itself still succeeds.
 */
export async function evaluateRequest(
  tableName: string,
  project: ProjectFlags,
  request: FlagsRequest,
): Promise<RequestEvaluation> {
  const flags = selectFlags(project, request.flagKeys);
  const personDependent = flags
    .filter((flag) => {
      const needs = project.personNeeds.get(flag.key);
      return !needs || needsStoredPerson(needs, request.personProperties);
    })
    .map((flag) => flag.key);
  const continuityKeys = flags.filter((flag) => flag.ensure_experience_continuity).map((flag) => flag.key);

  const wantedGroups = storedGroupsWanted(flags, project.groupTypeMapping, request);

  const noOverrides: HashKeyOverrides = {};
  const [stored, overrides, groupProperties] = await Promise.all([
    personDependent.length > 0
      ? attempt('the stored person', () => storedPerson(tableName, project, request.distinctId), nobody)
      : ({ ok: true, value: nobody } as const),
    continuityKeys.length > 0
      ? attempt(
          'hash-key overrides',
          () =>
            hashKeyOverridesFor(
              tableName,
              project.projectId,
              request.distinctId,
              request.anonDistinctId,
              continuityKeys,
            ),
          noOverrides,
        )
      : ({ ok: true, value: noOverrides } as const),
    attempt(
      'stored groups',
      () => groupPropertiesWithStored(tableName, project.projectId, wantedGroups, request.groupProperties),
      request.groupProperties,
    ),
  ]);

  const staticIds = new Set(project.staticCohorts.map(String));
  const evaluation = evaluateFlags(flags, {
    distinctId: request.distinctId,
    deviceId: request.deviceId,
    personProperties: { ...stored.value.properties, ...request.personProperties },
    cohorts: project.cohorts,
    cohortMembership: (id) => (staticIds.has(id) ? stored.value.staticCohorts.has(id) : undefined),
    groups: request.groups,
    groupProperties: groupProperties.value,
    groupTypeMapping: project.groupTypeMapping,
    hashKeyOverrides: overrides.value,
  });
  const failedKeys = new Set([
    ...(stored.ok ? [] : personDependent),
    ...(overrides.ok ? [] : continuityKeys),
    ...(groupProperties.ok ? [] : groupFlagKeys(flags)),
  ]);
  // fromEntries, not assignment: a flag may be keyed `__proto__` (the key rule allows it).
  const results = Object.fromEntries(
    Object.entries(evaluation.flags).map(([key, result]) => [
      key,
      failedKeys.has(key) ? failedResult(key) : result,
    ]),
  );
  return {
    flags,
    results,
    errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags || failedKeys.size > 0,
  };
}
