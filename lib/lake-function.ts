import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { lakeFlush } from '../functions/shared/queue/definitions';
import { FlockFunction, handlerEntry } from './flock-function';

/** DuckDB's native binding for Lambda's platform (the lake writer's Parquet, functions/lake/parquet.ts). */
export const lakeNativePackage = '@duckdb/node-bindings-linux-arm64';

/** What a function running DuckDB leaves out of its bundle and carries in its asset instead (below). */
export const duckDbPackages = {
  externalModules: ['@duckdb/node-bindings-*'],
  nativePackages: [lakeNativePackage],
} as const;

/**
 * The lake function (functions/lake, docs/lake.md): drains the lake queue into Parquet files on its
 * schedule. Its asset carries DuckDB's linux-arm64 binding beside the bundle: `@duckdb/node-api` is
 * bundled, and the binding package it requires for the platform it runs on (`@duckdb/node-bindings-*`,
 * a `.node` module and `libduckdb.so`) is left out of the bundle and put into the asset's
 * `node_modules/` instead.
 */
export function lakeFunction(
  scope: Construct,
  id: string,
  environment: Readonly<Record<string, string>>,
): FlockFunction {
  return new FlockFunction(scope, id, {
    entry: handlerEntry('lake'),
    serviceName: 'lake',
    description: 'Flock lake writer: drains the lake queue into Parquet files',
    // A flush holds up to `lakeFlush.flushEvents` events and their rows, and DuckDB its table.
    memorySize: 2048,
    environment,
    timeout: Duration.seconds(lakeFlush.functionTimeoutSeconds),
    ...duckDbPackages,
  });
}

/** Runs `fn` every `lakeFlush.scheduleMinutes`. */
export function lakeSchedule(scope: Construct, id: string, fn: FlockFunction): Rule {
  return new Rule(scope, id, {
    description: 'Flock: write the events of the lake queue to Parquet files',
    schedule: Schedule.rate(Duration.minutes(lakeFlush.scheduleMinutes)),
    // A run that fails leaves its messages in the queue: the next run writes them.
    targets: [new LambdaFunction(fn.function, { retryAttempts: 0 })],
  });
}
