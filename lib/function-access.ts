import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { HttpGroup } from '../functions/routes';
import { envNames } from '../functions/shared/config';
import { eventsTable, singleTable } from '../functions/shared/db/schema';
import { maxRequestBodyBytes } from '../functions/shared/http/body-limits';
import { ingestQueue } from '../functions/shared/queue/definitions';
import type { FlockFunction, QueueAccess, TableAccess } from './flock-function';

/** Everything a function may touch, and the settings that go with it. Absent means no access at all. */
export interface FunctionAccess {
  readonly eventsTable?: TableAccess;
  readonly singleTable?: TableAccess;
  readonly ingestQueue?: QueueAccess;
  readonly environment?: Readonly<Record<string, string>>;
}

/**
 * Access of each HTTP group: typed by the route table, so a group added to `functions/routes.ts` does not
 * compile until its access is declared here.
 */
export const httpGroupAccess: Readonly<Record<HttpGroup, FunctionAccess>> = {
  // Capture checks the project token (one GetItem, cached) and enqueues; it never writes a table.
  capture: {
    singleTable: 'getItem',
    ingestQueue: 'send',
    environment: { [envNames.maxBodyBytes]: String(maxRequestBodyBytes) },
  },
  // Personal API key lookup updates the key's last_used_at; events are only read.
  events: { singleTable: 'readUpdate', eventsTable: 'read' },
  // Creates and deletes projects and their token items, and sets the caller's current project.
  projects: { singleTable: 'readWrite' },
  // Reads the caller's organizations and projects; updates their name and current project.
  users: { singleTable: 'readUpdate' },
  // Creates and deletes keys (items keyed by the hash of their value).
  personal_api_keys: { singleTable: 'readWrite' },
  // Reads the definitions and daily counters the consumer writes; PATCH only updates definitions.
  event_definitions: { singleTable: 'readUpdate' },
  // Serves the OpenAPI document, built from the schemas in code: no data at all.
  schema: {},
  // Reads tokens, flags, group types and persons; its only writes are UpdateItems: hash-key overrides
  // (experience continuity, created by UpdateItem so no PutItem is needed) and a personal API key's
  // last_used_at (local evaluation definitions).
  flags: { singleTable: 'readUpdate' },
  // Creates flags (counter, key claim, flag item) and hard-deletes a soft-deleted flag whose key is reused.
  feature_flags: { singleTable: 'readWrite' },
  // Answers 404/405 from the route table alone.
  fallback: {},
};

/** The ingest consumer stores events, persons, definitions and counters. */
export const consumerAccess: FunctionAccess = { eventsTable: 'readWrite', singleTable: 'readWrite' };

/** The stateful resources a function can be bound to. */
export interface FlockResources {
  readonly eventsTable: ITable;
  readonly singleTable: ITable;
  readonly ingestQueue: IQueue;
}

/** Applies `access` to `fn`: environment variables and IAM grants, together. */
export function grantAccess(fn: FlockFunction, access: FunctionAccess, resources: FlockResources): void {
  if (access.eventsTable) fn.bindTable(eventsTable, resources.eventsTable, access.eventsTable);
  if (access.singleTable) fn.bindTable(singleTable, resources.singleTable, access.singleTable);
  if (access.ingestQueue) fn.bindQueue(ingestQueue, resources.ingestQueue, access.ingestQueue);
  for (const [name, value] of Object.entries(access.environment ?? {})) fn.addEnvironment(name, value);
}
