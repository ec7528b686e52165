/**
 * Every DynamoDB key Flock writes is built here, and only here.
 *
 * Access patterns → key condition (table / index):
 *
 * | Access pattern                                   | Key condition                                              | Where  |
 * |--------------------------------------------------|------------------------------------------------------------|--------|
 * | Organization by id                               | PK = ORG#<uuid>, SK = ORG                                  | main   |
 * | User by id                                       | PK = USER#<id>, SK = USER                                  | main   |
 * | Organizations of a user (membership)             | PK = USER#<id>, SK begins_with MEMBER#                     | main   |
 * | Personal API key by SHA-256 of its value         | PK = PAK#<sha256>, SK = PAK                                | main   |
 * | Personal API keys of a user, oldest first        | GSI1PK = USER#<id>#PAKS, GSI1SK = <created_at>#<id>        | GSI1   |
 * | Project by id                                    | PK = PROJECT#<id>, SK = PROJECT                            | main   |
 * | Projects of an organization, by id               | GSI1PK = ORG#<uuid>#PROJECTS, GSI1SK = <id, zero-padded>   | GSI1   |
 * | Project by its API token (capture, decide)       | PK = TOKEN#<token>, SK = TOKEN                             | main   |
 * | Next integer id of a kind (atomic counter)       | PK = COUNTER#<kind>, SK = COUNTER                          | main   |
 * | Event by project and uuid (idempotent write)     | PK = E#<project>#<uuid>, SK = E                            | events |
 * | Index pages of a project / event name / distinct | PK = I#<project>#<index>#<shard>#<value>, SK < <ts bound>  | events |
 * |   id, newest first                               |   (SK = <max ts>#<page id>, read descending, merged)       |        |
 *
 * Index pages: an event item is keyed by its uuid (so duplicates collapse into one item), and its
 * time order lives in small "index pages" written once per consumed SQS message. See
 * functions/shared/db/event-index.ts for the layout and the reading algorithm.
 */

const pad = (n: number, width = 12): string => String(n).padStart(width, '0');

export const keys = {
  organization: (orgId: string) => ({ PK: `ORG#${orgId}`, SK: 'ORG' }),
  user: (userId: number) => ({ PK: `USER#${userId}`, SK: 'USER' }),
  membership: (userId: number, orgId: string) => ({ PK: `USER#${userId}`, SK: `MEMBER#${orgId}` }),
  membershipPrefix: (userId: number) => ({ PK: `USER#${userId}`, SKPrefix: 'MEMBER#' }),
  personalApiKey: (sha256: string) => ({ PK: `PAK#${sha256}`, SK: 'PAK' }),
  personalApiKeysOfUser: (userId: number, createdAt: string, keyId: string) => ({
    GSI1PK: `USER#${userId}#PAKS`,
    GSI1SK: `${createdAt}#${keyId}`,
  }),
  project: (projectId: number) => ({ PK: `PROJECT#${projectId}`, SK: 'PROJECT' }),
  projectsOfOrganization: (orgId: string, projectId: number) => ({
    GSI1PK: `ORG#${orgId}#PROJECTS`,
    GSI1SK: pad(projectId),
  }),
  projectToken: (token: string) => ({ PK: `TOKEN#${token}`, SK: 'TOKEN' }),
  counter: (kind: string) => ({ PK: `COUNTER#${kind}`, SK: 'COUNTER' }),

  event: (projectId: number, uuid: string) => ({ PK: `E#${projectId}#${uuid}`, SK: 'E' }),
  indexPartition: (projectId: number, index: string, shard: number, value: string) =>
    `I#${projectId}#${index}#${shard}#${value}`,
  indexPageSortKey: (maxTimestamp: string, pageId: string) => `${maxTimestamp}#${pageId}`,
} as const;
