import type { App, Environment } from 'aws-cdk-lib';
import { Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { edgeRegion, FlockEdgeStack } from './edge-stack';
import { FlockStatefulStack } from './stateful-stack';
import { FlockStatelessStack } from './stateless-stack';
import type { QueryEngine } from '../functions/query/engine';

export interface FlockApp {
  readonly stateful: FlockStatefulStack;
  readonly stateless: FlockStatelessStack;
  /** With `-c edge=true`: CloudFront and the WAF per-caller limits in front of the API. */
  readonly edge?: FlockEdgeStack;
}

/**
 * Builds Flock's two stacks into `app` and registers cdk-nag's AWS Solutions checks, which fail
 * synthesis on any finding not acknowledged (with its reason) next to the construct it concerns.
 * The stacks are environment-agnostic unless the CLI supplies an account and region.
 * Context `projectMetrics=false` turns the per-project event counts off; `reservedConcurrency=false`
 * reserves no function concurrency; `cohortMaxEvents=N` bounds a cohort calculation's event reads;
 * `geoipDatabase=s3://bucket/key` gives the GeoIP plugin an official MaxMind City database;
 * `trustedProxies=N` locates capture's clients behind N reverse proxies (X-Forwarded-For);
 * `edge=true` adds the FlockEdge stack (us-east-1): CloudFront with WAF per-caller limits.
 */
export function buildApp(app: App): FlockApp {
  // The account and region the CDK CLI resolved (`cdk deploy`), unset for an environment-agnostic synth.
  const env: Environment = {
    account: process.env.CDK_DEFAULT_ACCOUNT,
    region: process.env.CDK_DEFAULT_REGION,
  };
  const stateful = new FlockStatefulStack(app, 'FlockStateful', { env });
  const edge = app.node.tryGetContext('edge') === 'true' || app.node.tryGetContext('edge') === true;
  const stateless = new FlockStatelessStack(app, 'FlockStateless', {
    env,
    // The edge stack reads the API's endpoint across regions unless the app is in us-east-1 too.
    ...(edge && env.region !== edgeRegion ? { crossRegionReferences: true } : {}),
    eventsTable: stateful.eventsTable,
    singleTable: stateful.singleTable,
    ingestQueue: stateful.ingestQueue,
    deadLetterQueue: stateful.deadLetterQueue,
    exportsQueue: stateful.exportsQueue,
    exportsDeadLetterQueue: stateful.exportsDeadLetterQueue,
    lakeQueue: stateful.lakeQueue,
    lakeDeadLetterQueue: stateful.lakeDeadLetterQueue,
    lakeBucket: stateful.lake.bucket,
    lakeQueries: stateful.lake.queries,
    pluginSecretsKey: stateful.pluginSecretsKey,
    // `cdk deploy -c projectMetrics=false`: no per-project metrics (one CloudWatch metric per
    // project and count is billed; turn them off for thousands of projects).
    projectMetrics: app.node.tryGetContext('projectMetrics') !== 'false',
    // `cdk deploy -c reservedConcurrency=false`: for accounts whose concurrency limit is too low to
    // reserve any (new accounts may start at 10).
    ...(app.node.tryGetContext('reservedConcurrency') === 'false' ? { reservedConcurrency: false } : {}),
    // `cdk deploy -c cohortMaxEvents=N`: events one cohort calculation may read (behavioural filters).
    ...(app.node.tryGetContext('cohortMaxEvents') !== undefined
      ? { cohortMaxEvents: Number(app.node.tryGetContext('cohortMaxEvents')) }
      : {}),
    // `cdk deploy -c geoipDatabase=s3://bucket/GeoLite2-City.mmdb`: the GeoIP plugin reads the
    // operator's official MaxMind database instead of the bundled GeoLite2 City files.
    ...(app.node.tryGetContext('geoipDatabase') !== undefined
      ? { geoipDatabase: String(app.node.tryGetContext('geoipDatabase')) }
      : {}),
    // `cdk deploy -c queryEngine=duckdb|athena|auto`: the query API's engine (docs/query-api.md).
    ...(app.node.tryGetContext('queryEngine') !== undefined
      ? { queryEngine: String(app.node.tryGetContext('queryEngine')) as QueryEngine }
      : {}),
    // `cdk deploy -c trustedProxies=1`: capture is served through CloudFront or another reverse proxy
    // (docs/proxies.md); events are located at the address it saw, not at the proxy.
    ...(app.node.tryGetContext('trustedProxies') !== undefined
      ? { trustedProxies: Number(app.node.tryGetContext('trustedProxies')) }
      : {}),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  if (!edge) return { stateful, stateless };
  if (!env.account || !env.region)
    throw new Error(
      '-c edge=true needs the target account and region (AWS credentials, or CDK_DEFAULT_ACCOUNT and CDK_DEFAULT_REGION): the edge stack is deployed to us-east-1 and reads the API endpoint from the stateless stack.',
    );
  return {
    stateful,
    stateless,
    edge: new FlockEdgeStack(app, 'FlockEdge', {
      env: { account: env.account, region: edgeRegion },
      ...(env.region !== edgeRegion ? { crossRegionReferences: true } : {}),
      apiEndpoint: stateless.httpApi.api.apiEndpoint,
    }),
  };
}
