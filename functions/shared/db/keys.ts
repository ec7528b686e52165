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
 * | Person of a distinct id (mapping, claimed once)  | PK = DID#<project>#<distinct id>, SK = DID                 | main   |
 * | Person by uuid (with its distinct ids, version)  | PK = PERSON#<project>#<uuid>, SK = PERSON                  | main   |
 * | Event definition of a project by name            | PK = PROJECT#<id>, SK = EVDEF#<name>                       | main   |
 * | Event definitions of a project, by name          | PK = PROJECT#<id>, SK begins_with EVDEF#                   | main   |
 * | Event definition by id (ids derive from names)   | GSI1PK = EVDEFID#<project>#<id>, GSI1SK = EVDEF            | GSI1   |
 * | Number of event definitions of a project         | PK = PROJECT#<id>, SK = EVDEFCOUNT                         | main   |
 * | Daily volume of an event name (last 30 days)     | PK = EVVOL#<project>#<name>, SK between <day> and <day>    | main   |
 * | Feature flag of a project by id                  | PK = PROJECT#<id>, SK = FLAG#<id, zero-padded>             | main   |
 * | Feature flags of a project, by id (deleted too)  | PK = PROJECT#<id>, SK begins_with FLAG#                    | main   |
 * | Feature flag key claim (unique among live flags) | PK = PROJECT#<id>, SK = FLAGKEY#<key>                      | main   |
 * | Group types of a project (index → name)          | PK = PROJECT#<id>, SK begins_with GROUPTYPE#               | main   |
 * | Group of a project by type name and key          | PK = GROUP#<project>#<JSON [type, key]>, SK = GROUP        | main   |
 * | Groups of a project's type, newest first         | GSI1PK = GROUPS#<project>#<type>, GSI1SK = <created>#<key> | GSI1   |
 * | Flag hash-key overrides of a distinct id         | PK = FLAGHASH#<project>#<distinct id>, SK = FLAGHASH       | main   |
 * | Sampled recent values of an event property       | PK = PROPVAL#<project>#<key>, SK = <value>                 | main   |
 * | Persons of a project, newest first (16 shards)   | PK = PERSONS#<project>#<shard>, SK = <created_at>#<uuid>    | main   |
 * | Persons whose `email` property is a value        | PK = PEMAIL#<project>#<email>, SK = <uuid>                 | main   |
 * | Cohort of a project by id                        | PK = PROJECT#<id>, SK = COHORT#<id, zero-padded>           | main   |
 * | Cohorts of a project, by id (deleted too)        | PK = PROJECT#<id>, SK begins_with COHORT#                  | main   |
 * | Members of a cohort, by person uuid (16 shards)  | PK = COHORTMEM#<project>#<cohort>#<shard>, SK = <uuid>     | main   |
 * | Member pages of a cohort, by uuid prefix         | PK = COHORTMEM#<project>#<cohort>#<shard>, SK = #<2 chars> | main   |
 * | Cohorts due for calculation, soonest first       | GSI1PK = COHORTDUE, GSI1SK = <due at>#<project>#<id>       | GSI1   |
 * | Plugin config of a project by id                 | PK = PLUGINCONFIG#<project>, SK = CONFIG#<id, zero-padded> | main   |
 * | Plugin configs of a project, by id               | PK = PLUGINCONFIG#<project>, SK begins_with CONFIG#        | main   |
 * | Plugin config of a plugin (one per project)      | PK = PLUGINCONFIG#<project>, SK = PLUGIN#<plugin id>       | main   |
 * | Plugin configs and claims before their own       | PK = PROJECT#<id>, SK = PLUGINCONFIG#<id> / PLUGINFOR#<id> | main   |
 * |   partition (read only by the upgrade that moves them)                                                        |        |
 * | Log entries of a plugin config, newest first     | PK = PLUGINLOG#<project>#<config>, SK = <ts>#<uuid>        | main   |
 * | Stored value of a plugin config by key           | PK = PLUGINSTORE#<config>, SK = <key>                      | main   |
 * | Job requests of a plugin config                  | PK = PLUGINJOB#<project>#<config>, SK = <ts>#<uuid>        | main   |
 * | Plugin job requests not yet run, oldest first    | GSI1PK = PLUGINJOBS#PENDING, GSI1SK = <ts>#<uuid>          | GSI1   |
 * | Export claim of an event by a config (once each) | PK = PLUGINEXPORT#<config>#<uuid>, SK = CLAIM              | main   |
 * | Exported export message (by content hash)        | PK = PLUGINEXPORT#<config>#<hash>, SK = DONE               | main   |
 * | Lake claim of an event (the file that holds it)  | PK = LAKE#<project>#<uuid>, SK = CLAIM                     | main   |
 * | Delivered/failed export counts per config, hour  | PK = PROJECT#<id>, SK between PLUGINDELIVERY#<config>#<h>… | main   |
 *
 * Index pages: an event item is keyed by its uuid (so duplicates collapse into one item), and its
 * time order lives in small "index pages" written once per consumed SQS message. See
 * functions/shared/db/event-index.ts for the layout and the reading algorithm.
 *
 * Persons: a distinct id item maps one distinct id to a person uuid; it is created once with a
 * condition (whoever creates it owns the id) and only ever re-pointed from the merged person to the
 * survivor. A person item carries its distinct ids, properties and a version for optimistic
 * concurrency; a person merged into another stays as a forwarding item (`merged_into`). See
 * functions/consumer/persons.ts for the write order that makes every step replayable.
 * Daily volume counters: one item per (project, event name, UTC day of the event timestamp), `ADD`ed
 * once per consumer batch; `volume_30_day` sums the last 30 of them with one Query.
 * Feature flags: one item per flag under its project (deleted flags stay, `deleted: true`); a key
 * claim item names the flag holding a key and is taken with a condition, so two live flags never
 * share a key. A claim whose flag is gone, deleted or renamed is free. See db/feature-flags.ts.
 * Flag hash-key overrides (experience continuity): one item per distinct id, one attribute per
 * flag key, each set once (`if_not_exists`). See db/flag-overrides.ts.
 * Person listing: one small item per person, written when the person is created, spread over
 * `personShards` partitions by the person's uuid so a 10M-person project has no hot partition; a
 * page of persons merges the shards' newest items (db/person-listing.ts).
 * Person emails: one item per (email, person) while the person's `email` property is that value,
 * written and removed by the consumer only when the property changes, each write conditional on the
 * person's version; readers check each entry against the person it names (db/person-emails.ts).
 * Cohort membership: sharded the same way, a calculated cohort's members in member pages (one item
 * per shard and first two characters of the members' uuids, sorted first in the shard), a static
 * cohort's uploaded members one item each (sorted after the pages); a member check is one BatchGetItem
 * of both keys and a page of members two Queries per shard from a cursor (db/cohort-members.ts).
 * Plugin configs: one item per config in its project's plugin-config partition, so the consumer reads
 * a project's configs with one Query; a claim item per (project, plugin) names the project's config of
 * that plugin, taken with a condition, so a project never gets two configs of one plugin. The partition
 * is not the project's own (PROJECT#) because configs hold secrets: only the functions granted the
 * PLUGINCONFIG# prefix (lib/function-access.ts) can read them, not every function that reads projects.
 * Configs written before that lived under PROJECT#; bin/ops/migrate-plugin-configs.ts moves them. Log entries expire (TTL
 * `expires`) and sort by time within their config's partition (db/plugin-configs.ts, db/plugin-logs.ts).
 * Exports: a claim item per (config, event uuid) names the ingest message that first handed the
 * event over, and a done item per exported exports message, both expiring after the longest a
 * duplicate can arrive; delivery counters, one item per (config, hour), live in the project's
 * partition (db/plugin-exports.ts).
 */

/** Partitions the persons of a project, and the members of a cohort, are spread over. */
export const personShards = 16;

/** The shard of a person: from its uuid's last hex digit (uuids are random or hash-derived there). */
export function personShard(personUuid: string): number {
  const digit = Number.parseInt(personUuid.slice(-1), 16);
  return Number.isNaN(digit) ? 0 : digit % personShards;
}

/**
 * The sort key of the member page that holds a person in a cohort: `#` and the uuid's first two
 * characters (person uuids are hash-derived, so 256 pages a shard share the members evenly). `#`
 * sorts before every character of a uuid, so pages come first in the shard, in their uuids' order.
 */
function cohortMemberPageSortKey(personUuid: string): string {
  return `#${personUuid.slice(0, 2)}`;
}

/** The due index's one partition: every scheduled cohort, sorted by when it is due. */
const cohortsDuePartition = 'COHORTDUE';

const pad = (n: number, width = 12): string => String(n).padStart(width, '0');

export const keys = {
  organization: (orgId: string) => ({ PK: `ORG#${orgId}`, SK: 'ORG' }),
  user: (userId: number) => ({ PK: `USER#${userId}`, SK: 'USER' }),
  membership: (userId: number, orgId: string) => ({ PK: `USER#${userId}`, SK: `MEMBER#${orgId}` }),
  membershipPrefix: (userId: number) => ({ PK: `USER#${userId}`, SKPrefix: 'MEMBER#' }),
  personalApiKey: (sha256: string) => ({ PK: `PAK#${sha256}`, SK: 'PAK' }),
  personalApiKeysOfUserPartition: (userId: number) => `USER#${userId}#PAKS`,
  personalApiKeysOfUser: (userId: number, createdAt: string, keyId: string) => ({
    GSI1PK: `USER#${userId}#PAKS`,
    GSI1SK: `${createdAt}#${keyId}`,
  }),
  project: (projectId: number) => ({ PK: `PROJECT#${projectId}`, SK: 'PROJECT' }),
  projectsOfOrganizationPartition: (orgId: string) => `ORG#${orgId}#PROJECTS`,
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
  propertyValue: (projectId: number, key: string, value: string) => ({
    PK: `PROPVAL#${projectId}#${key}`,
    SK: value,
  }),
  propertyValues: (projectId: number, key: string) => `PROPVAL#${projectId}#${key}`,

  personDistinctId: (projectId: number, distinctId: string) => ({
    PK: `DID#${projectId}#${distinctId}`,
    SK: 'DID',
  }),
  person: (projectId: number, personUuid: string) => ({
    PK: `PERSON#${projectId}#${personUuid}`,
    SK: 'PERSON',
  }),
  personListingPartition: (projectId: number, shard: number) => `PERSONS#${projectId}#${shard}`,
  personListing: (projectId: number, createdAt: string, personUuid: string) => ({
    PK: `PERSONS#${projectId}#${personShard(personUuid)}`,
    SK: `${createdAt}#${personUuid}`,
  }),
  personEmailPartition: (projectId: number, email: string) => `PEMAIL#${projectId}#${email}`,
  personEmail: (projectId: number, email: string, personUuid: string) => ({
    PK: `PEMAIL#${projectId}#${email}`,
    SK: personUuid,
  }),
  eventDefinition: (projectId: number, name: string) => ({ PK: `PROJECT#${projectId}`, SK: `EVDEF#${name}` }),
  eventDefinitionsPrefix: (projectId: number) => ({ PK: `PROJECT#${projectId}`, SKPrefix: 'EVDEF#' }),
  eventDefinitionByIdPartition: (projectId: number, id: string) => `EVDEFID#${projectId}#${id}`,
  eventDefinitionById: (projectId: number, id: string) => ({
    GSI1PK: `EVDEFID#${projectId}#${id}`,
    GSI1SK: 'EVDEF',
  }),
  eventDefinitionCount: (projectId: number) => ({ PK: `PROJECT#${projectId}`, SK: 'EVDEFCOUNT' }),
  eventVolumePartition: (projectId: number, name: string) => `EVVOL#${projectId}#${name}`,
  propertyDefinition: (projectId: number, kind: string, name: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `PROPDEF#${kind}#${name}`,
  }),
  propertyDefinitionsPrefix: (projectId: number, kind: string) => ({
    PK: `PROJECT#${projectId}`,
    SKPrefix: `PROPDEF#${kind}#`,
  }),
  propertyDefinitionCount: (projectId: number) => ({ PK: `PROJECT#${projectId}`, SK: 'PROPDEFCOUNT' }),
  eventProperties: (projectId: number, eventName: string) => ({
    PK: `EVPROP#${projectId}#${eventName}`,
    SK: 'EVPROP',
  }),
  eventVolume: (projectId: number, name: string, day: string) => ({
    PK: `EVVOL#${projectId}#${name}`,
    SK: day,
  }),

  featureFlag: (projectId: number, flagId: number) => ({
    PK: `PROJECT#${projectId}`,
    SK: `FLAG#${pad(flagId)}`,
  }),
  featureFlagsPrefix: (projectId: number) => ({ PK: `PROJECT#${projectId}`, SKPrefix: 'FLAG#' }),
  featureFlagKey: (projectId: number, key: string) => ({ PK: `PROJECT#${projectId}`, SK: `FLAGKEY#${key}` }),
  groupType: (projectId: number, index: number) => ({ PK: `PROJECT#${projectId}`, SK: `GROUPTYPE#${index}` }),
  group: (projectId: number, groupType: string, groupKey: string) => ({
    PK: `GROUP#${projectId}#${JSON.stringify([groupType, groupKey])}`,
    SK: 'GROUP',
  }),
  groupsOfTypePartition: (projectId: number, groupType: string) => `GROUPS#${projectId}#${groupType}`,
  groupsOfType: (projectId: number, groupType: string, createdAt: string, groupKey: string) => ({
    GSI1PK: `GROUPS#${projectId}#${groupType}`,
    GSI1SK: `${createdAt}#${groupKey}`,
  }),
  groupTypesPrefix: (projectId: number) => ({ PK: `PROJECT#${projectId}`, SKPrefix: 'GROUPTYPE#' }),
  cohort: (projectId: number, cohortId: number) => ({
    PK: `PROJECT#${projectId}`,
    SK: `COHORT#${pad(cohortId)}`,
  }),
  cohortsPrefix: (projectId: number) => ({ PK: `PROJECT#${projectId}`, SKPrefix: 'COHORT#' }),
  cohortMembersPartition: (projectId: number, cohortId: number, shard: number) =>
    `COHORTMEM#${projectId}#${cohortId}#${shard}`,
  cohortMember: (projectId: number, cohortId: number, personUuid: string) => ({
    PK: `COHORTMEM#${projectId}#${cohortId}#${personShard(personUuid)}`,
    SK: personUuid,
  }),
  cohortMemberPage: (projectId: number, cohortId: number, personUuid: string) => ({
    PK: `COHORTMEM#${projectId}#${cohortId}#${personShard(personUuid)}`,
    SK: cohortMemberPageSortKey(personUuid),
  }),
  cohortMemberPageSortKey,
  /** Every page's sort key lies within these bounds; every member item's (a uuid) after them. */
  cohortMemberPagesRange: { first: '#', last: '#\uffff' },
  cohortsDuePartition,
  cohortDue: (dueAt: string, projectId: number, cohortId: number) => ({
    GSI1PK: cohortsDuePartition,
    GSI1SK: `${dueAt}#${projectId}#${cohortId}`,
  }),
  pluginConfig: (projectId: number, configId: number) => ({
    PK: `PLUGINCONFIG#${projectId}`,
    SK: `CONFIG#${pad(configId)}`,
  }),
  pluginConfigsPrefix: (projectId: number) => ({ PK: `PLUGINCONFIG#${projectId}`, SKPrefix: 'CONFIG#' }),
  pluginConfigClaim: (projectId: number, pluginId: number) => ({
    PK: `PLUGINCONFIG#${projectId}`,
    SK: `PLUGIN#${pluginId}`,
  }),
  /** Where configs and their claims were kept before they had a partition of their own. */
  legacyPluginConfigSortKeyPrefixes: { config: 'PLUGINCONFIG#', claim: 'PLUGINFOR#' },
  legacyProjectPartitionPrefix: 'PROJECT#',
  pluginLogPartition: (projectId: number, configId: number) => `PLUGINLOG#${projectId}#${configId}`,
  pluginLogSortKey: (timestamp: string, entryId: string) => `${timestamp}#${entryId}`,
  pluginStorage: (configId: number, key: string) => ({ PK: `PLUGINSTORE#${configId}`, SK: key }),
  pluginJobsPartition: (projectId: number, configId: number) => `PLUGINJOB#${projectId}#${configId}`,
  pluginJob: (projectId: number, configId: number, createdAt: string, jobId: string) => ({
    PK: `PLUGINJOB#${projectId}#${configId}`,
    SK: `${createdAt}#${jobId}`,
  }),
  pendingPluginJobsPartition: 'PLUGINJOBS#PENDING',
  pendingPluginJob: (createdAt: string, jobId: string) => ({
    GSI1PK: 'PLUGINJOBS#PENDING',
    GSI1SK: `${createdAt}#${jobId}`,
  }),
  pluginExportClaim: (configId: number, uuid: string) => ({
    PK: `PLUGINEXPORT#${configId}#${uuid}`,
    SK: 'CLAIM',
  }),
  pluginExportDone: (configId: number, hash: string) => ({
    PK: `PLUGINEXPORT#${configId}#${hash}`,
    SK: 'DONE',
  }),
  lakeClaim: (projectId: number, source: string) => ({
    PK: `LAKE#${projectId}#${source}`,
    SK: 'CLAIM',
  }),
  pluginDeliveries: (projectId: number, configId: number, hour: string) => ({
    PK: `PROJECT#${projectId}`,
    SK: `PLUGINDELIVERY#${pad(configId)}#${hour}`,
  }),
  flagHashKeyOverrides: (projectId: number, distinctId: string) => ({
    PK: `FLAGHASH#${projectId}#${distinctId}`,
    SK: 'FLAGHASH',
  }),
} as const;
