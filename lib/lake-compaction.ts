import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { join } from 'node:path';
import { lakeCompaction } from '../functions/shared/lake/compaction';
import { FlockFunction } from './flock-function';
import { lakeNativePackage } from './lake-function';
import type { FlockResources } from './grant-access';
import { grantAccess } from './grant-access';
import { lakeCompactionAccess } from './function-access';

export interface LakeCompactionProps {
  readonly resources: FlockResources;
  /** Environment of every Flock function (service settings). @default none */
  readonly environment?: Readonly<Record<string, string>>;
  /** Its reserved concurrency: 1 (one run at a time), or none where the account cannot reserve any. @default 1 */
  readonly reservedConcurrency?: 1 | false;
}

/**
 * The lake's upkeep job (functions/lake/compact-handler.ts): compaction and deleted projects'
 * prefixes, every `lakeCompaction.scheduleMinutes` on an EventBridge schedule. One run at a time
 * (reserved concurrency 1: a compaction's commit is only safe against another one's through the
 * listing rule's newest marker, and two runs would only double the work); 2 GB of memory and 2 GB of
 * /tmp for DuckDB merging files of up to 256 MB. Like the lake function, its asset carries DuckDB's
 * native linux-arm64 binding (lib/lake-function.ts); its `events/*` object grant is acknowledged to
 * cdk-nag with the grant (lib/grant-access.ts): the job's file names are not known in advance.
 */
export class LakeCompaction extends Construct {
  public readonly function: FlockFunction;

  constructor(scope: Construct, id: string, props: LakeCompactionProps) {
    super(scope, id);
    this.function = new FlockFunction(this, 'Function', {
      entry: join(__dirname, '../functions/lake/compact-handler.ts'),
      serviceName: 'lake_compaction',
      description: 'Flock lake upkeep: compacts settled partitions, empties deleted projects',
      memorySize: 2048,
      environment: props.environment,
      timeout: Duration.seconds(lakeCompaction.functionTimeoutSeconds),
      reservedConcurrentExecutions: props.reservedConcurrency === false ? undefined : 1,
      externalModules: ['@duckdb/node-bindings-*'],
      nativePackages: [lakeNativePackage],
    });
    (this.function.function.node.defaultChild as CfnFunction).ephemeralStorage = { size: 2048 };
    grantAccess(this.function, lakeCompactionAccess, props.resources);
    new Rule(this, 'Schedule', {
      description: 'Flock: compact the events lake and empty deleted projects',
      schedule: Schedule.rate(Duration.minutes(lakeCompaction.scheduleMinutes)),
      // A run skipped (a previous one still going) is made up by the next: nothing is lost.
      targets: [new LambdaFunction(this.function.function, { retryAttempts: 0 })],
    });
  }
}
