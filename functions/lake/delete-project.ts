import { lakeEventsPrefix } from '../shared/lake/layout';
import { logger } from '../shared/logger';
import type { LakeStore } from './store';

/**
 * Deleted projects' lake prefixes: every `events/project_id=<id>/` whose project no longer exists
 * (project ids are never reused, so a missing project is a deleted one) is emptied, a page of keys
 * at a time. Idempotent and resumable: a run that stops leaves the rest for the next one, which lists
 * the prefix again; files the lake writer still wrote after the deletion (events queued before it)
 * go in a later run the same way.
 */

export interface DeletionOutcome {
  readonly projects: number;
  readonly objectsDeleted: number;
}

/** The project id of a `events/project_id=<id>/` prefix, if it is one. */
function projectIdOf(prefix: string): number | undefined {
  const match = /^events\/project_id=(\d{1,15})\/$/.exec(prefix);
  return match ? Number(match[1]) : undefined;
}

export async function deleteRemovedProjects(
  store: LakeStore,
  projectExists: (projectId: number) => Promise<boolean>,
  deadline: number,
): Promise<DeletionOutcome> {
  let projects = 0;
  let objectsDeleted = 0;
  for (const prefix of await store.listPrefixes(lakeEventsPrefix)) {
    const projectId = projectIdOf(prefix);
    if (projectId === undefined || (await projectExists(projectId))) continue;
    if (Date.now() >= deadline) break;
    const keys = (await store.list(prefix)).map((object) => object.key);
    await store.delete(keys);
    objectsDeleted += keys.length;
    projects++;
    logger.info('Deleted a removed project from the lake', { projectId, objects: keys.length });
  }
  return { projects, objectsDeleted };
}
