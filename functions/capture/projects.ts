import type { ProjectTokenItem } from '../shared/db/projects';
import { findProjectByToken } from '../shared/db/projects';

/**
 * Token → project, cached per container for at most 5 seconds (DESIGN.md): steady-state capture
 * costs no table read, and a deleted project's token stops working within 5 seconds.
 */
const ttlMs = 5_000;
const cache = new Map<string, { value: ProjectTokenItem | undefined; expires: number }>();

export async function projectOfToken(tableName: string, token: string, now = Date.now()): Promise<ProjectTokenItem | undefined> {
  const hit = cache.get(token);
  if (hit && hit.expires > now) return hit.value;
  const value = await findProjectByToken(tableName, token);
  if (cache.size > 10_000) cache.clear();
  cache.set(token, { value, expires: now + ttlMs });
  return value;
}
