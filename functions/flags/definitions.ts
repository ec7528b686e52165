import { ServiceUnavailableError } from '../shared/http/errors';
import { logger } from '../shared/logger';
import { FreshCache } from './fresh-cache';
import type { ProjectFlags } from './project-flags';
import { loadProjectFlags } from './project-flags';

/**
 * Each project's flag definitions, cached per container for 5 seconds (DESIGN.md): in the steady
 * state `/decide` and `/flags` cost no table read for them, and a change made through the flags API
 * (another Lambda) shows within 5 seconds. If a reload fails, the last definitions read keep serving.
 */
export const definitionsTtlMs = 5_000;
const maxProjects = 1_000;

const cache = new FreshCache<number, ProjectFlags>(definitionsTtlMs, maxProjects, (projectId, error) =>
  logger.warn('Serving cached flag definitions: reload failed', { projectId, error: error as Error }),
);

/** The project's definitions, fresh within the TTL; 503 (retryable) if they can't be read at all. */
export async function projectFlagsFor(tableName: string, projectId: number): Promise<ProjectFlags> {
  try {
    return await cache.get(projectId, (id) => loadProjectFlags(tableName, id));
  } catch (error) {
    logger.error('Could not load flag definitions', { projectId, error: error as Error });
    throw new ServiceUnavailableError('Unable to load feature flags. Please try again.', 'flags_unavailable');
  }
}
