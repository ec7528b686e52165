import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { HttpGroup } from '../functions/routes';
import { envNames } from '../functions/shared/config';
import { eventsTable, singleTable } from '../functions/shared/db/schema';
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
 * Lambda refuses synchronous requests above 6 MB, so on AWS that limit binds before spec §8's 20 MB;
 * the handler answers 413 itself below it.
 */
const lambdaRequestLimitBytes = 6 * 1024 * 1024;

/**
 * Access of each HTTP group: typed by the route table, so a group added to `functions/routes.ts` does not
 * compile until its access is declared here.
 */
export const httpGroupAccess: Readonly<Record<HttpGroup, FunctionAccess>> = {
  // Capture checks the project token (one GetItem, cached) and enqueues; it never writes a table.
  capture: {
    singleTable: 'getItem',
    ingestQueue: 'send',
    environment: { [envNames.maxBodyBytes]: String(lambdaRequestLimitBytes) },
  },
  // Personal API key lookup updates the key's last_used_at; events are only read.
  events: { singleTable: 'readUpdate', eventsTable: 'read' },
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
