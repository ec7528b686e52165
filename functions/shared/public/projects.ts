import { sha256Hex } from '../auth/secrets';
import { getMembership } from '../db/memberships';
import { findPersonalApiKey } from '../db/personal-api-keys';
import { getUser } from '../db/users';
import type { ProjectTokenItem } from '../db/projects';
import { findProjectByToken, getProject } from '../db/projects';
import { boundedCache, ReadThroughCache } from '../cache';

/**
 * Credential → project, cached per container for at most 5 seconds: steady-state capture costs no
 * table read, and a deleted project or a revoked key stops working within 5 seconds. Only GetItem
 * is used: that is all the capture function may do on the table.
 *
 * Credentials that lead nowhere are remembered apart, in a smaller cache: a flood of random tokens
 * evicts only other random tokens, never the projects real traffic needs.
 */
const ttlMs = 5_000;
const maxKnown = 10_000;
const maxUnknown = 2_000;

/** DynamoDB refuses keys over 2 KB; no real project token comes near, so longer ones are unknown. */
const maxTokenLength = 512;

/**
 * A lookup cached as above. `isKnown` tells the answers kept in the main cache from those that lead
 * nowhere, kept in the small one. `context` carries what the lookup needs and the key must not hold.
 */
function cachedLookup<V, C>(
  lookUp: (context: C) => Promise<V>,
  isKnown: (value: V) => boolean,
): (key: string, context: C) => Promise<V> {
  const unknown = boundedCache<string, { value: V }>({ max: maxUnknown, ttlMs });
  const known = new ReadThroughCache<string, { value: V }, C>({
    max: maxKnown,
    ttlMs,
    load: async (key, context) => {
      const value = await lookUp(context);
      if (isKnown(value)) return { value };
      unknown.set(key, { value });
      return undefined;
    },
  });
  return async (key, context) => {
    const miss = unknown.get(key);
    if (miss) return miss.value;
    const hit = (await known.get(key, context)) ?? unknown.get(key);
    return hit ? hit.value : lookUp(context);
  };
}

const tokenLookups = new Map<
  string,
  (token: string, context: string) => Promise<ProjectTokenItem | undefined>
>();

export async function projectOfToken(
  tableName: string,
  token: string,
): Promise<ProjectTokenItem | undefined> {
  if (token === '' || token.length > maxTokenLength) return undefined;
  // One cache per table: a function is bound to one (tests use several).
  let lookup = tokenLookups.get(tableName);
  if (!lookup) {
    lookup = cachedLookup(
      (t: string) => findProjectByToken(tableName, t),
      (project) => project !== undefined,
    );
    tokenLookups.set(tableName, lookup);
  }
  return lookup(token, token);
}

/** A personal API key names a project: its own, or one of another organization, or no key at all. */
export type PersonalKeyProject =
  | { readonly kind: 'project'; readonly project: ProjectTokenItem }
  | { readonly kind: 'unknown_key' }
  | { readonly kind: 'no_team' };

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

type PersonalKeyLookup = (
  cacheKey: string,
  request: { readonly key: string; readonly projectId: number },
) => Promise<PersonalKeyProject>;
const personalKeyLookups = new Map<string, PersonalKeyLookup>();

export async function projectOfPersonalApiKey(
  tableName: string,
  key: string,
  projectId: number,
): Promise<PersonalKeyProject> {
  let lookup = personalKeyLookups.get(tableName);
  if (!lookup) {
    lookup = cachedLookup(
      (request: { key: string; projectId: number }) =>
        lookUpPersonalKeyProject(tableName, request.key, request.projectId),
      (found) => found.kind === 'project',
    );
    personalKeyLookups.set(tableName, lookup);
  }
  // Keyed by the key's hash: the cache never holds a secret, nor an arbitrarily long string.
  return lookup(`${projectId}#${sha256Hex(key)}`, { key, projectId });
}
