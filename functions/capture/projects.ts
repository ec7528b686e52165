import { sha256Hex } from '../shared/auth/secrets';
import { getMembership } from '../shared/db/memberships';
import { findPersonalApiKey } from '../shared/db/personal-api-keys';
import { getUser } from '../shared/db/users';
import type { ProjectTokenItem } from '../shared/db/projects';
import { findProjectByToken, getProject } from '../shared/db/projects';
import { TtlCache } from './ttl-cache';

/**
 * Credential → project, cached per container for at most 5 seconds (DESIGN.md): steady-state capture
 * costs no table read, and a deleted project or a revoked key stops working within 5 seconds.
 * Only GetItem is used: that is all the capture function may do on the table.
 */
const ttlMs = 5_000;
const maxEntries = 10_000;

/** DynamoDB refuses keys over 2 KB; no real project token comes near, so longer ones are unknown. */
const maxTokenLength = 512;

const byToken = new TtlCache<ProjectTokenItem | undefined>(ttlMs, maxEntries);

export async function projectOfToken(
  tableName: string,
  token: string,
  now = Date.now(),
): Promise<ProjectTokenItem | undefined> {
  if (token === '' || token.length > maxTokenLength) return undefined;
  const hit = byToken.get(token, now);
  if (hit) return hit.value;
  const value = await findProjectByToken(tableName, token);
  byToken.set(token, value, now);
  return value;
}

/** A personal API key names a project: its own, or one of another organization, or no key at all. */
export type PersonalKeyProject =
  | { readonly kind: 'project'; readonly project: ProjectTokenItem }
  | { readonly kind: 'unknown_key' }
  | { readonly kind: 'no_team' };

const byPersonalKey = new TtlCache<PersonalKeyProject>(ttlMs, maxEntries);

/**
 * Django's `User.objects.get_from_personal_api_key(token)` then `user.teams.get(id=project_id)`: the
 * key's user must belong to the organization that owns the project.
 */
async function lookUpPersonalKeyProject(
  tableName: string,
  key: string,
  projectId: number,
): Promise<PersonalKeyProject> {
  const apiKey = await findPersonalApiKey(tableName, key);
  const user = apiKey ? await getUser(tableName, apiKey.user_id) : undefined;
  if (!user) return { kind: 'unknown_key' };
  const project = await getProject(tableName, projectId);
  const membership = project ? await getMembership(tableName, user.id, project.organization) : undefined;
  if (!project || !membership) return { kind: 'no_team' };
  return {
    kind: 'project',
    project: {
      project_id: project.id,
      organization: project.organization,
      anonymize_ips: project.anonymize_ips,
    },
  };
}

export async function projectOfPersonalApiKey(
  tableName: string,
  key: string,
  projectId: number,
  now = Date.now(),
): Promise<PersonalKeyProject> {
  // Keyed by the key's hash: the cache never holds a secret, nor an arbitrarily long string.
  const cacheKey = `${projectId}#${sha256Hex(key)}`;
  const hit = byPersonalKey.get(cacheKey, now);
  if (hit) return hit.value;
  const value = await lookUpPersonalKeyProject(tableName, key, projectId);
  byPersonalKey.set(cacheKey, value, now);
  return value;
}
