import { ReadThroughCache } from '../shared/cache';
import { ServiceUnavailableError } from '../shared/http/errors';
import { logger } from '../shared/logger';
import type { ProjectFlags } from './project-flags';
import { loadProjectFlags } from './project-flags';

/**
 * Each project's flag definitions, cached per container for 5 seconds: in the steady
 * state `/decide` and `/flags` cost no table read for them, and a change made through the flags API
 * (another Lambda) shows within 5 seconds. If a reload fails, the last definitions read keep serving.
 */
export const definitionsTtlMs = 5_000;
const maxProjects = 1_000;

/** One cache per table: a function is bound to one (tests use several). */
const caches = new Map<string, ReadThroughCache<number, ProjectFlags>>();

function cacheFor(tableName: string): ReadThroughCache<number, ProjectFlags> {
  let cache = caches.get(tableName);
  if (!cache) {
    cache = new ReadThroughCache<number, ProjectFlags>({
      max: maxProjects,
      ttlMs: definitionsTtlMs,
      load: (projectId) => loadProjectFlags(tableName, projectId),
      onStaleServed: (projectId, error) =>
        logger.warn('Serving cached flag definitions: reload failed', { projectId, error: error as Error }),
    });
    caches.set(tableName, cache);
  }
  return cache;
}

/** The project's definitions, fresh within the TTL; 503 (retryable) if they can't be read at all. */
export async function projectFlagsFor(tableName: string, projectId: number): Promise<ProjectFlags> {
  try {
    const flags = await cacheFor(tableName).get(projectId);
    if (flags) return flags;
  } catch (error) {
    logger.error('Could not load flag definitions', { projectId, error: error as Error });
  }
  throw new ServiceUnavailableError('Unable to load feature flags. Please try again.', 'flags_unavailable');
}
