import type { HttpGroup } from '../functions/routes';
import { envNames } from '../functions/shared/config';
import { maxRequestBodyBytes } from '../functions/shared/http/body-limits';
import type { QueueAccess, SecretsKeyAccess } from './queue-and-key-grants';
import type { TableAction, TableGrant } from './table-access';
import { anyKey } from './table-access';

/** Everything a function may touch, and the settings that go with it. Absent means no access at all. */
export interface FunctionAccess {
  readonly eventsTable?: TableGrant;
  readonly singleTable?: TableGrant;
  readonly ingestQueue?: QueueAccess;
  readonly exportsQueue?: QueueAccess;
  readonly lakeQueue?: QueueAccess;
  /**
   * The lake bucket, under `events/`: `write` puts and checks lake files (the lake function); `read`
   * lists and gets them (the query function); `maintain` also copies and deletes them (the lake
   * compaction job).
   */
  readonly lakeBucket?: 'write' | 'read' | 'maintain';
  /**
   * Athena queries over the lake (the query function past its own budget): start, poll, read and stop
   * executions in the lake's workgroup, read the Glue table, write and read the workgroup's results.
   */
  readonly lakeQueries?: true;
  /** The key of plugin config secrets: absent for every function but the two that seal or open them. */
  readonly pluginSecretsKey?: SecretsKeyAccess;
  readonly environment?: Readonly<Record<string, string>>;
}

const get: TableAction = 'dynamodb:GetItem';
const batchGet: TableAction = 'dynamodb:BatchGetItem';
const query: TableAction = 'dynamodb:Query';
const put: TableAction = 'dynamodb:PutItem';
const update: TableAction = 'dynamodb:UpdateItem';
const remove: TableAction = 'dynamodb:DeleteItem';
const batchWrite: TableAction = 'dynamodb:BatchWriteItem';

/**
 * What every private route reads to authenticate its caller (the personal API key, its user and
 * membership, and the project the path names), and its one write: the key's last_used_at.
 */
const callerReads = ['PAK#', 'USER#', 'PROJECT#'];
const callerWrites = ['PAK#'];

/**
 * Access of each HTTP group: typed by the route table, so a group added to `functions/routes.ts` does not
 * compile until its access is declared here. Each grant lists exactly the actions the function's
 * code calls (test/cdk/function-access.test.ts checks them against each bundle), each with the
 * partition key prefixes that action addresses (the local server's IAM guard refuses any other,
 * bin/local/iam-guard.ts). Plugin configs (PLUGINCONFIG#, which hold sealed secrets) are readable by
 * the plugin_configs group, the consumer and the exports function only.
 */
export const httpGroupAccess: Readonly<Record<HttpGroup, FunctionAccess>> = {
  // Capture checks the project token, or a personal API key with a project id (one GetItem each,
  // cached), and enqueues; it never writes a table.
  capture: {
    singleTable: { [get]: ['TOKEN#', ...callerReads] },
    ingestQueue: 'send',
    environment: { [envNames.maxBodyBytes]: String(maxRequestBodyBytes) },
  },
  // Reads events, persons (by distinct id, in batches), definitions and property values; its only
  // write is the key's last_used_at.
  events: {
    singleTable: {
      [get]: callerReads,
      [batchGet]: ['DID#', 'PERSON#'],
      [query]: ['PROJECT#', 'PROPVAL#'],
      [update]: callerWrites,
    },
    eventsTable: { [get]: anyKey, [batchGet]: anyKey, [query]: anyKey },
  },
  // Creates and deletes projects and their token items, and sets the caller's current project; lists
  // an organization's projects from the index.
  projects: {
    singleTable: {
      [get]: callerReads,
      [query]: [],
      [put]: ['PROJECT#', 'TOKEN#'],
      [update]: [...callerWrites, 'USER#', 'PROJECT#', 'TOKEN#', 'COUNTER#'],
      [remove]: ['PROJECT#', 'TOKEN#'],
    },
  },
  // Reads the caller's organizations and projects; updates their name and current project.
  users: {
    singleTable: {
      [get]: [...callerReads, 'ORG#'],
      [query]: ['USER#'],
      [update]: [...callerWrites, 'USER#'],
    },
  },
  // Creates and deletes keys (items keyed by the hash of their value), lists a user's from the index.
  personal_api_keys: {
    singleTable: {
      [get]: ['PAK#', 'USER#'],
      [query]: [],
      [put]: ['PAK#'],
      [update]: ['PAK#'],
      [remove]: ['PAK#'],
    },
  },
  // Reads the event and property definitions, event-property pairs and daily counters the consumer
  // writes, and the users named in them (owner, verified_by, updated_by); PATCH only updates event
  // definitions.
  event_definitions: {
    singleTable: {
      [get]: callerReads,
      [batchGet]: ['PROJECT#', 'USER#', 'EVPROP#'],
      [query]: ['PROJECT#', 'EVVOL#'],
      [update]: [...callerWrites, 'PROJECT#'],
    },
  },
  // Serves the OpenAPI document, built from the schemas in code: no data at all.
  schema: {},
  // Reads tokens, flags, group types, groups, cohorts and persons (and static cohort membership); its only
  // writes are UpdateItems: hash-key overrides (experience continuity, created by UpdateItem so no
  // PutItem is needed) and a personal API key's last_used_at (local evaluation definitions).
  flags: {
    singleTable: {
      [get]: ['TOKEN#', ...callerReads, 'DID#', 'PERSON#'],
      [batchGet]: ['FLAGHASH#', 'COHORTMEM#', 'GROUP#'],
      [query]: ['PROJECT#'],
      [update]: [...callerWrites, 'FLAGHASH#'],
    },
  },
  // Creates flags (counter, key claim, flag item) and hard-deletes a soft-deleted flag whose key is
  // reused; remote config finds the project by its token.
  feature_flags: {
    singleTable: {
      [get]: ['TOKEN#', ...callerReads],
      [query]: ['PROJECT#'],
      [put]: ['PROJECT#'],
      [update]: [...callerWrites, 'COUNTER#'],
      [remove]: ['PROJECT#'],
    },
  },
  // Reads the person listing, the email index, distinct id mappings and persons; groups, their
  // listing (GSI1) and the group types; writes only the key's last_used_at.
  persons: {
    singleTable: {
      [get]: [...callerReads, 'GROUP#'],
      [batchGet]: ['DID#', 'PERSON#'],
      [query]: ['PERSONS#', 'PEMAIL#', 'PROJECT#'],
      [update]: callerWrites,
    },
  },
  // Cohorts: the counter and cohort items; a static cohort's members (written from CSV uploads, with the
  // persons they name read first, emails through the email index); reads flags to keep behavioural
  // cohorts out of them.
  cohorts: {
    singleTable: {
      [get]: callerReads,
      [batchGet]: ['DID#', 'PERSON#'],
      [query]: ['PROJECT#', 'COHORTMEM#', 'PEMAIL#'],
      [put]: ['PROJECT#'],
      [update]: [...callerWrites, 'COUNTER#'],
      [batchWrite]: ['COHORTMEM#'],
    },
  },
  // Reads the caller's membership of the organization, and the organization when there is none (403 vs
  // 404); the catalogue itself is code.
  plugins: { singleTable: { [get]: ['PAK#', 'USER#', 'ORG#'], [update]: callerWrites } },
  // Plugin configs (counter, claim per plugin and config items in the project's plugin-config
  // partition), the export delivery counters (in the project's partition), their log entries (read,
  // and written for a config's loads and unloads) and job requests (written for the exports function).
  plugin_configs: {
    singleTable: {
      [get]: [...callerReads, 'PLUGINCONFIG#'],
      [query]: ['PROJECT#', 'PLUGINCONFIG#', 'PLUGINLOG#', 'PLUGINJOB#'],
      [put]: ['PLUGINCONFIG#', 'PLUGINJOB#'],
      [update]: [...callerWrites, 'COUNTER#', 'PLUGINCONFIG#'],
      [batchWrite]: ['PLUGINLOG#'],
    },
    // Seals the secret settings it is sent; it shows them masked, so it never opens one.
    pluginSecretsKey: 'seal',
  },
  // Runs queries over its project's lake files (read-only, under `events/`), and reads the persons of
  // distinct ids for EventsQuery's `person` column; its table writes are the key's last_used_at, its
  // result cache (functions/shared/db/query-cache.ts) and async queries' statuses
  // (functions/shared/db/query-status.ts). Its runs queue is its own (lib/query-runs.ts).
  query: {
    singleTable: {
      [get]: [...callerReads, 'QCACHE#', 'QSTATUS#'],
      [update]: [...callerWrites, 'QSTATUS#'],
      [batchGet]: ['DID#', 'PERSON#'],
      [put]: ['QCACHE#', 'QSTATUS#'],
      [remove]: ['QSTATUS#'],
    },
    lakeBucket: 'read',
    lakeQueries: true,
  },
  // Answers 404/405 from the route table alone.
  fallback: {},
};

/**
 * The ingest consumer stores events (BatchWriteItem; before it, it reads which of the batch's event
 * items exist already, keys only, to count events sent again: EventsAlreadyStored), persons,
 * definitions, groups and group types, counters, property values and failure records. It runs
 * plugins: reads the project's plugin configs and writes their `error`, writes their log entries, and
 * reads and writes the storage of the plugins that keep state. Its only deletes are a person's old
 * entries in the email index (PEMAIL#). It hands stored events of projects with an export config to
 * the exports queue. It never opens a secret setting: it only checks that one is set (the exports
 * function uploads).
 */
export const consumerAccess: FunctionAccess = {
  exportsQueue: 'send',
  lakeQueue: 'send',
  eventsTable: { [batchWrite]: ['E#', 'I#'], [batchGet]: ['E#'] },
  singleTable: {
    [get]: ['PROJECT#', 'PLUGINSTORE#', 'GROUP#'],
    [batchGet]: ['PROJECT#', 'DID#', 'PERSON#', 'EVPROP#'],
    [query]: ['PROJECT#', 'PLUGINCONFIG#'],
    [put]: ['PROJECT#', 'DID#', 'PERSON#', 'PEMAIL#', 'GROUP#', 'PLUGINSTORE#'],
    [update]: ['PROJECT#', 'PLUGINCONFIG#', 'DID#', 'PERSON#', 'EVVOL#', 'EVPROP#'],
    [remove]: ['PEMAIL#'],
    [batchWrite]: ['PERSONS#', 'PROPVAL#', 'FAIL#', 'PLUGINLOG#'],
  },
};

/**
 * The cohort calculation reads the due index and cohorts (PROJECT#), the person listing and persons,
 * the named events' index pages and items, and writes cohorts and their members (puts and deletes of
 * membership items in BatchWriteItem). It never touches keys, tokens or flags.
 */
export const cohortCalculationAccess: FunctionAccess = {
  eventsTable: { [query]: ['I#'], [batchGet]: ['E#'] },
  singleTable: {
    [get]: ['PROJECT#'],
    [batchGet]: ['PERSON#'],
    [query]: ['PROJECT#', 'PERSONS#', 'COHORTMEM#'],
    [put]: ['PROJECT#'],
    [batchWrite]: ['COHORTMEM#'],
  },
};

/**
 * The exports function reads export configs and writes their `error` (PLUGINCONFIG#), counts
 * deliveries (PROJECT#), claims events and records exported messages (PLUGINEXPORT#), writes log
 * entries and failure records of the messages it fails (FAIL#, for `dlq list --queue exports`), and
 * reads, leases and finishes plugin jobs (the pending-jobs index, then PLUGINJOB# items). The
 * historical export reads stored events as the events API does (index pages, then items). Its uploads
 * go to each config's own bucket with the config's own credentials: the role has no S3 permission.
 */
export const exportsAccess: FunctionAccess = {
  // Opens a config's secret settings to upload with its credentials.
  pluginSecretsKey: 'open',
  eventsTable: { [query]: ['I#'], [batchGet]: ['E#'] },
  singleTable: {
    [get]: ['PLUGINCONFIG#'],
    [batchGet]: ['PLUGINEXPORT#'],
    [query]: [],
    [update]: ['PROJECT#', 'PLUGINCONFIG#', 'PLUGINEXPORT#', 'PLUGINJOB#'],
    [batchWrite]: ['PLUGINEXPORT#', 'PLUGINLOG#', 'FAIL#'],
  },
};

/**
 * The lake function: drains the lake queue, reads the handed-over events' items (E#: the settle
 * check), claims each source's events for its flush (LAKE#), reads each project's group types
 * (PROJECT#) for the `group_<n>` columns, and writes files to the lake bucket.
 */
export const lakeAccess: FunctionAccess = {
  lakeQueue: 'drain',
  lakeBucket: 'write',
  // The settle check reads the source and timestamp of each handed-over event's item.
  eventsTable: { [batchGet]: ['E#'] },
  singleTable: {
    [get]: ['LAKE#'],
    [query]: ['PROJECT#'],
    [update]: ['LAKE#'],
  },
};

/**
 * The lake compaction job (functions/lake/compact-handler.ts): reads whether each project of the lake
 * still exists (PROJECT#) and lists, reads, writes and deletes lake files.
 */
export const lakeCompactionAccess: FunctionAccess = {
  lakeBucket: 'maintain',
  singleTable: { [get]: ['PROJECT#'] },
};
