import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { HttpGroup } from '../functions/routes';
import { envNames } from '../functions/shared/config';
import { eventsTable, singleTable } from '../functions/shared/db/schema';
import { maxRequestBodyBytes } from '../functions/shared/http/body-limits';
import { exportsQueue, ingestQueue } from '../functions/shared/queue/definitions';
import type { FlockFunction, QueueAccess, SecretsKeyAccess } from './flock-function';
import type { TableAction, TableGrant } from './table-access';

/** Everything a function may touch, and the settings that go with it. Absent means no access at all. */
export interface FunctionAccess {
  readonly eventsTable?: TableGrant;
  readonly singleTable?: TableGrant;
  readonly ingestQueue?: QueueAccess;
  readonly exportsQueue?: QueueAccess;
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
 * Partition keys every private route reads to authenticate its caller: the personal API key, its
 * user and memberships, and the project the path names.
 */
const callerKeys = ['PAK#', 'USER#', 'PROJECT#'];

/**
 * Access of each HTTP group: typed by the route table, so a group added to `functions/routes.ts` does not
 * compile until its access is declared here. Each grant lists exactly the actions the function's
 * code calls (test/cdk/function-access.test.ts checks them against each bundle) and the partition key
 * prefixes it addresses (the local server's IAM guard refuses any other, bin/local/iam-guard.ts).
 */
export const httpGroupAccess: Readonly<Record<HttpGroup, FunctionAccess>> = {
  // Capture checks the project token, or a personal API key with a project id (one GetItem each,
  // cached), and enqueues; it never writes a table.
  capture: {
    singleTable: { actions: [get], leadingKeys: ['TOKEN#', ...callerKeys] },
    ingestQueue: 'send',
    environment: { [envNames.maxBodyBytes]: String(maxRequestBodyBytes) },
  },
  // Reads events, persons and property values; its only write is the key's last_used_at.
  events: {
    singleTable: {
      actions: [get, batchGet, query, update],
      leadingKeys: [...callerKeys, 'DID#', 'PERSON#', 'PROPVAL#', 'EVVOL#'],
    },
    eventsTable: { actions: [get, batchGet, query] },
  },
  // Creates and deletes projects and their token items, and sets the caller's current project.
  projects: {
    singleTable: {
      actions: [get, query, put, update, remove],
      leadingKeys: [...callerKeys, 'TOKEN#', 'COUNTER#', 'ORG#'],
    },
  },
  // Reads the caller's organizations and projects; updates their name and current project.
  users: { singleTable: { actions: [get, query, update], leadingKeys: [...callerKeys, 'ORG#'] } },
  // Creates and deletes keys (items keyed by the hash of their value).
  personal_api_keys: { singleTable: { actions: [get, query, put, update, remove], leadingKeys: callerKeys } },
  // Reads the definitions and daily counters the consumer writes; PATCH only updates definitions.
  event_definitions: {
    singleTable: { actions: [get, batchGet, query, update], leadingKeys: [...callerKeys, 'EVVOL#'] },
  },
  // Serves the OpenAPI document, built from the schemas in code: no data at all.
  schema: {},
  // Reads tokens, flags, group types, cohorts and persons (and static cohort membership); its only writes are UpdateItems: hash-key overrides
  // (experience continuity, created by UpdateItem so no PutItem is needed) and a personal API key's
  // last_used_at (local evaluation definitions).
  flags: {
    singleTable: {
      actions: [get, batchGet, query, update],
      leadingKeys: ['TOKEN#', ...callerKeys, 'DID#', 'PERSON#', 'FLAGHASH#', 'COHORTMEM#'],
    },
  },
  // Creates flags (counter, key claim, flag item) and hard-deletes a soft-deleted flag whose key is reused.
  feature_flags: {
    singleTable: {
      actions: [get, query, put, update, remove],
      leadingKeys: [...callerKeys, 'TOKEN#', 'COUNTER#'],
    },
  },
  // Reads the person listing, distinct id mappings and persons; writes only the key's last_used_at.
  persons: {
    singleTable: {
      actions: [get, batchGet, query, update],
      leadingKeys: [...callerKeys, 'PERSONS#', 'DID#', 'PERSON#'],
    },
  },
  // Cohorts: the counter and cohort items; a static cohort's members (written from CSV uploads, with the
  // persons they name read first); reads flags to keep behavioural cohorts out of them.
  cohorts: {
    singleTable: {
      actions: [get, batchGet, query, put, update, batchWrite],
      leadingKeys: [...callerKeys, 'COUNTER#', 'COHORTMEM#', 'DID#', 'PERSON#'],
    },
  },
  // Reads the caller's membership of the organization, and the organization when there is none (403 vs
  // 404); the catalogue itself is code.
  plugins: { singleTable: { actions: [get, update], leadingKeys: [...callerKeys, 'ORG#'] } },
  // Plugin configs (counter, claim per plugin and config items in the project's partition, where the
  // export delivery counters are read too), their log entries (read only) and job requests (written
  // for the exports function).
  plugin_configs: {
    singleTable: {
      actions: [get, query, put, update],
      leadingKeys: [...callerKeys, 'COUNTER#', 'PLUGINCONFIG#', 'PLUGINLOG#', 'PLUGINJOB#'],
    },
    // Seals the secret settings it is sent; it shows them masked, so it never opens one.
    pluginSecretsKey: 'seal',
  },
  // Answers 404/405 from the route table alone.
  fallback: {},
};

/**
 * The ingest consumer stores events (BatchWriteItem only: it never reads them back), persons,
 * definitions, counters, property values and failure records. It runs plugins: reads the project's
 * plugin configs and writes their `error` (both in the project's partition), writes their log
 * entries, and reads and writes the storage of the plugins that keep state. It deletes nothing.
 * It hands stored events of projects with an export config to the exports queue.
 */
export const consumerAccess: FunctionAccess = {
  exportsQueue: 'send',
  eventsTable: { actions: [batchWrite] },
  singleTable: {
    actions: [get, batchGet, query, put, update, batchWrite],
    leadingKeys: [
      'PROJECT#',
      'PLUGINCONFIG#',
      'DID#',
      'PERSON#',
      'PERSONS#',
      'EVVOL#',
      'PROPVAL#',
      'FAIL#',
      'PLUGINLOG#',
      'PLUGINSTORE#',
    ],
  },
};

/**
 * The cohort calculation reads the due index and cohorts (PROJECT#), the person listing and persons,
 * the named events' index pages and items, and writes cohorts and their members (puts and deletes of
 * membership items in BatchWriteItem). It never touches keys, tokens or flags.
 */
export const cohortCalculationAccess: FunctionAccess = {
  eventsTable: { actions: [query, batchGet], leadingKeys: ['I#', 'E#'] },
  singleTable: {
    actions: [get, batchGet, query, put, batchWrite],
    leadingKeys: ['PROJECT#', 'PERSONS#', 'PERSON#', 'COHORTMEM#'],
  },
};

/**
 * The exports function reads export configs and writes their `error` (PROJECT#, where its delivery
 * counters live too), claims events and records exported messages (PLUGINEXPORT#), writes log entries
 * and failure records of the messages it fails (FAIL#, for `dlq list --queue exports`), and reads,
 * leases and finishes plugin jobs (the pending-jobs index, then PLUGINJOB# items). The
 * historical export reads stored events as the events API does (index pages, then items). Its uploads
 * go to each config's own bucket with the config's own credentials: the role has no S3 permission.
 */
export const exportsAccess: FunctionAccess = {
  // Opens a config's secret settings to upload with its credentials.
  pluginSecretsKey: 'open',
  eventsTable: { actions: [query, batchGet], leadingKeys: ['I#', 'E#'] },
  singleTable: {
    actions: [get, batchGet, query, update, batchWrite],
    leadingKeys: ['PROJECT#', 'PLUGINCONFIG#', 'PLUGINEXPORT#', 'PLUGINLOG#', 'PLUGINJOB#', 'FAIL#'],
  },
};

/** The stateful resources a function can be bound to. */
export interface FlockResources {
  readonly eventsTable: ITable;
  readonly singleTable: ITable;
  readonly ingestQueue: IQueue;
  readonly exportsQueue: IQueue;
  readonly pluginSecretsKey: IKey;
}

/** Applies `access` to `fn`: environment variables and IAM grants, together. */
export function grantAccess(fn: FlockFunction, access: FunctionAccess, resources: FlockResources): void {
  if (access.eventsTable) fn.bindTable(eventsTable, resources.eventsTable, access.eventsTable);
  if (access.singleTable) fn.bindTable(singleTable, resources.singleTable, access.singleTable);
  if (access.ingestQueue) fn.bindQueue(ingestQueue, resources.ingestQueue, access.ingestQueue);
  if (access.exportsQueue) fn.bindQueue(exportsQueue, resources.exportsQueue, access.exportsQueue);
  if (access.pluginSecretsKey) fn.bindSecretsKey(resources.pluginSecretsKey, access.pluginSecretsKey);
  for (const [name, value] of Object.entries(access.environment ?? {})) fn.addEnvironment(name, value);
}
