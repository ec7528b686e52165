/**
 * Shape of Flock's two DynamoDB tables: attribute and index names, in one place.
 * Used by the CDK stateful stack and by the local server's emulator setup, so they cannot drift.
 * Key *values* are built only in `keys.ts`.
 */

import { envNames } from '../config';

export interface IndexDefinition {
  readonly indexName: string;
  readonly partitionKey: string;
  readonly sortKey: string;
}

export interface TableDefinition {
  /** The local table name (the CDK construct id is fixed in `lib/stateful-stack.ts`). */
  readonly name: string;
  /** Environment variable through which a function learns the physical table name. */
  readonly envVar: string;
  readonly partitionKey: string;
  readonly sortKey: string;
  readonly globalSecondaryIndexes: readonly IndexDefinition[];
  /** Attribute holding an item's expiry (epoch seconds) for DynamoDB's TTL, if the table has one. */
  readonly timeToLiveAttribute?: string;
}

/** The high-volume event stream: event items and their time-ordered index pages (see keys.ts). */
export const eventsTable: TableDefinition = {
  name: 'FlockEvents',
  envVar: envNames.eventsTable,
  partitionKey: 'PK',
  sortKey: 'SK',
  globalSecondaryIndexes: [],
};

/** Everything else: organizations, users, keys, projects, persons, definitions, counters (see keys.ts). */
export const singleTable: TableDefinition = {
  name: 'FlockMain',
  envVar: envNames.singleTable,
  partitionKey: 'PK',
  sortKey: 'SK',
  globalSecondaryIndexes: [{ indexName: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' }],
  // Sampled property values expire (functions/shared/db/property-values.ts).
  timeToLiveAttribute: 'expires',
};

export const tables = [eventsTable, singleTable] as const;
