import { queryFunctionMemoryMb } from '../../functions/query/settings';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Template } from 'aws-cdk-lib/assertions';
import { Match } from 'aws-cdk-lib/assertions';
import type { HttpGroup } from '../../functions/routes';
import { httpGroups, isPrivateRoute, routeKey, routes } from '../../functions/routes';
import {
  cohortCalculationConcurrency,
  cohortCalculationTimeoutSeconds,
  cohortScheduleMinutes,
} from '../../functions/cohort_calculation/settings';
import { envNames } from '../../functions/shared/config';
import { eventsTable, singleTable } from '../../functions/shared/db/schema';
import { maxRequestBodyBytes } from '../../functions/shared/http/body-limits';
import {
  consumerEventSource,
  exportsEventSource,
  exportsQueue,
  ingestQueue,
} from '../../functions/shared/queue/definitions';
import { buildApp } from '../../lib/app';
import {
  defaultApiThrottle,
  defaultPrivateRouteThrottle,
  defaultReservedConcurrency,
} from '../../lib/stateless-stack';
import { synthesizedApp, testApp } from '../helpers/cdk-app';

// GIVEN the Flock app as `cdk synth` builds it, with bundling disabled so synth stays fast
// WHEN it is synthesized (cdk-nag runs too: an unacknowledged finding would throw there), once for
// every CDK test file
const { stateless: template, ids } = synthesizedApp();

// Synthesized templates are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;
type FunctionName = HttpGroup | 'consumer' | 'cohort_calculation' | 'exports' | 'lake' | 'lake_compaction';
const functionNames: readonly FunctionName[] = [
  ...httpGroups,
  'consumer',
  'cohort_calculation',
  'exports',
  'lake',
  'lake_compaction',
];

const functions = template.findResources('AWS::Lambda::Function');
/** Logical id of each Flock function of a stack, found by the service name it logs under. */
const functionIdsOf = (stack: Template): Record<FunctionName, string> =>
  Object.fromEntries(
    Object.entries(stack.findResources('AWS::Lambda::Function')).map(([id, fn]) => [
      fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME as string,
      id,
    ]),
  ) as Record<FunctionName, string>;
const functionIdOf = functionIdsOf(template);

/** The statements of the policies attached to a function's role (in the default app, or `stack`). */
function statementsOf(name: FunctionName, stack = template): Json[] {
  const ids = stack === template ? functionIdOf : functionIdsOf(stack);
  const roleRef = stack.findResources('AWS::Lambda::Function')[ids[name]]?.Properties.Role['Fn::GetAtt'][0];
  return Object.values(stack.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as Json[]).some((role) => role.Ref === roleRef))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[]);
}
const actionsOf = (statement: Json): string[] => [statement.Action as string | string[]].flat();
const resourcesOf = (statement: Json): Json[] => [statement.Resource as Json | Json[]].flat();

/** Whether a (possibly imported) value refers to a resource of the stateful stack. */
const refersTo = (value: unknown, logicalId: string): boolean => JSON.stringify(value).includes(logicalId);
const { eventsTable: eventsTableId, singleTable: singleTableId } = ids.stateful;
const {
  ingestQueue: ingestQueueId,
  deadLetterQueue: deadLetterQueueId,
  exportsQueue: exportsQueueId,
} = ids.stateful;

/** The actions a function may perform on one stateful resource. */
function actionsOn(name: FunctionName, logicalId: string): string[] {
  return statementsOf(name)
    .filter((statement) => resourcesOf(statement).some((resource) => refersTo(resource, logicalId)))
    .flatMap(actionsOf)
    .filter((action, index, all) => all.indexOf(action) === index)
    .sort();
}
const writeActions = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
];

describe('FlockStatelessStack', () => {
  describe('functions', () => {
    it('creates one Lambda function per route group plus the consumer, the cohort calculation, exports, the lake writer and its upkeep job, and no other', () => {
      // THEN no CDK helper function either (no log-retention or custom-resource provider)
      template.resourceCountIs('AWS::Lambda::Function', httpGroups.length + 5);
      expect(Object.keys(functionIdOf).sort()).toEqual([...functionNames].sort());
    });

    it('runs every function on Node.js 24 on arm64, without Node.js parsing source maps at cold start', () => {
      // THEN the bundles map their own stack traces when one is formatted (functions/shared/source-maps.ts)
      for (const fn of Object.values(functions)) {
        expect(fn.Properties).toMatchObject({
          Runtime: 'nodejs24.x',
          Architectures: ['arm64'],
          Handler: 'index.handler',
        });
        expect(fn.Properties.Environment.Variables).not.toHaveProperty('NODE_OPTIONS');
      }
    });

    it('logs every function to its own log group kept for one month', () => {
      // THEN
      const logGroups = template.findResources('AWS::Logs::LogGroup');
      const used = Object.values(functions).map((fn) => fn.Properties.LoggingConfig.LogGroup.Ref as string);
      expect(new Set(used).size).toBe(functionNames.length);
      for (const id of used) expect(logGroups[id]?.Properties.RetentionInDays).toBe(30);
    });

    it('gives HTTP functions 256 MB (the query function its DuckDB memory) and the consumer 512 MB with the timeout of definitions.ts', () => {
      // THEN
      for (const group of httpGroups)
        expect(functions[functionIdOf[group]]?.Properties.MemorySize).toBe(
          group === 'query' ? queryFunctionMemoryMb : 256,
        );
      expect(functions[functionIdOf.consumer]?.Properties).toMatchObject({
        MemorySize: 512,
        Timeout: consumerEventSource.functionTimeoutSeconds,
      });
    });

    it("sets capture's body limit to the one the local server plays (4 MiB)", () => {
      // THEN
      expect(functions[functionIdOf.capture]?.Properties.Environment.Variables[envNames.maxBodyBytes]).toBe(
        String(maxRequestBodyBytes),
      );
      expect(maxRequestBodyBytes).toBe(4 * 1024 * 1024);
    });

    it('tells each function the names of exactly the tables and queues it is granted', () => {
      // THEN
      const envOf = (name: FunctionName): string[] =>
        Object.keys(functions[functionIdOf[name]]?.Properties.Environment.Variables ?? {})
          .filter((v) =>
            [eventsTable.envVar, singleTable.envVar, ingestQueue.envVar, exportsQueue.envVar].includes(v),
          )
          .sort();
      expect(envOf('capture')).toEqual([ingestQueue.envVar, singleTable.envVar].sort());
      expect(envOf('events')).toEqual([eventsTable.envVar, singleTable.envVar].sort());
      expect(envOf('fallback')).toEqual([]);
      expect(envOf('consumer')).toEqual([eventsTable.envVar, singleTable.envVar, exportsQueue.envVar].sort());
      expect(envOf('exports')).toEqual([eventsTable.envVar, singleTable.envVar].sort());
      expect(envOf('cohort_calculation')).toEqual([eventsTable.envVar, singleTable.envVar].sort());
    });

    it('runs the cohort calculation every minute, with no retries, for up to 15 minutes, 2 runs at most', () => {
      // THEN
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: `rate(${cohortScheduleMinutes} minute)`,
        State: 'ENABLED',
        Targets: [
          Match.objectLike({
            Arn: { 'Fn::GetAtt': [functionIdOf.cohort_calculation, 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: 0 },
          }),
        ],
      });
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'events.amazonaws.com',
        FunctionName: { 'Fn::GetAtt': [functionIdOf.cohort_calculation, 'Arn'] },
      });
      expect(functions[functionIdOf.cohort_calculation]?.Properties).toMatchObject({
        Timeout: cohortCalculationTimeoutSeconds,
        ReservedConcurrentExecutions: cohortCalculationConcurrency,
      });
    });
  });

  describe('least privilege', () => {
    it('lets capture only GetItem on the single table and send to the ingest queue', () => {
      // THEN
      expect(actionsOn('capture', singleTableId)).toEqual(['dynamodb:GetItem']);
      expect(actionsOn('capture', eventsTableId)).toEqual([]);
      expect(actionsOn('capture', ingestQueueId)).toEqual(['sqs:SendMessage']);
      const dataActions = statementsOf('capture')
        .flatMap(actionsOf)
        .filter((a) => !a.startsWith('logs:'));
      expect(dataActions.sort()).toEqual(['dynamodb:GetItem', 'sqs:SendMessage']);
    });

    it('gives fallback no DynamoDB or SQS permission at all', () => {
      // THEN
      const actions = statementsOf('fallback').flatMap(actionsOf);
      expect(actions.filter((a) => a.startsWith('dynamodb:') || a.startsWith('sqs:'))).toEqual([]);
    });

    it('lets events read both tables and update (never put or delete) only the single table', () => {
      // THEN
      expect(actionsOn('events', eventsTableId)).toEqual([
        'dynamodb:BatchGetItem',
        'dynamodb:GetItem',
        'dynamodb:Query',
      ]);
      expect(actionsOn('events', singleTableId)).toEqual([
        'dynamodb:BatchGetItem',
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ]);
      expect(actionsOn('events', ingestQueueId)).toEqual([]);
    });

    it('lets only the consumer write the events table', () => {
      // THEN
      for (const name of functionNames) {
        const writes = actionsOn(name, eventsTableId).filter((a) => writeActions.includes(a));
        expect({ name, writes }).toEqual({
          name,
          writes: name === 'consumer' ? ['dynamodb:BatchWriteItem'] : [],
        });
      }
    });

    it('lets the consumer batch-write events (and batch-get their keys), read and write the single table (deleting only email index entries), and consume the queue', () => {
      // THEN
      expect(actionsOn('consumer', eventsTableId)).toEqual([
        'dynamodb:BatchGetItem',
        'dynamodb:BatchWriteItem',
      ]);
      expect(actionsOn('consumer', singleTableId)).toEqual(
        [
          'dynamodb:BatchGetItem',
          'dynamodb:GetItem',
          'dynamodb:Query',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
        ].sort(),
      );
      // Its only delete: a person's old email index entry, when the person's email changes.
      const deletes = statementsOf('consumer').filter(
        (statement) =>
          actionsOf(statement).includes('dynamodb:DeleteItem') &&
          resourcesOf(statement).some((resource) => refersTo(resource, singleTableId)),
      );
      expect(deletes.map((statement): unknown[] => [actionsOf(statement), statement.Condition])).toEqual([
        [['dynamodb:DeleteItem'], { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PEMAIL#*'] } }],
      ]);
      const queueActions = actionsOn('consumer', ingestQueueId);
      expect(queueActions).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']));
      expect(queueActions).not.toContain('sqs:SendMessage');
    });

    it('grants Query on the named index only, never on index/*', () => {
      // THEN
      const indexResources = functionNames
        .flatMap((name) => statementsOf(name))
        .flatMap(resourcesOf)
        .map((resource) => JSON.stringify(resource))
        .filter((resource) => resource.includes('/index/'));
      expect(indexResources.length).toBeGreaterThan(0);
      for (const resource of indexResources) expect(resource).toMatch(/\/index\/GSI1"/);
    });

    it('grants no wildcard action and no wildcard resource to any function', () => {
      // THEN
      for (const statement of functionNames.flatMap((name) => statementsOf(name))) {
        for (const action of actionsOf(statement)) expect(action).not.toContain('*');
        for (const resource of resourcesOf(statement)) expect(resource).not.toBe('*');
      }
    });

    it('attaches no managed policy to any function role', () => {
      // THEN
      for (const role of Object.values(template.findResources('AWS::IAM::Role'))) {
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
      }
    });
  });

  describe('HTTP API', () => {
    const routeResources = Object.values(template.findResources('AWS::ApiGatewayV2::Route'));
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration');
    /** The function a route invokes: route target → integration → function. */
    const functionIdOfRoute = (route: Json): string => {
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref as string;
      return integrations[integrationId]?.Properties.IntegrationUri['Fn::GetAtt'][0] as string;
    };

    it('creates exactly one route per row of the route table', () => {
      // THEN
      template.resourceCountIs('AWS::ApiGatewayV2::Route', routes.length);
      for (const row of routes) {
        const matching = routeResources.filter((route) => route.Properties.RouteKey === routeKey(row));
        expect({ row, count: matching.length }).toEqual({ row, count: 1 });
      }
    });

    it("sends each row to its group's function", () => {
      // THEN
      for (const row of routes) {
        const route = routeResources.find((r) => r.Properties.RouteKey === routeKey(row));
        expect({ row, fn: functionIdOfRoute(route!) }).toEqual({ row, fn: functionIdOf[row.group] });
      }
    });

    it('serves the $default route with the fallback function', () => {
      // THEN
      const route = routeResources.find((r) => r.Properties.RouteKey === '$default');
      expect(functionIdOfRoute(route!)).toBe(functionIdOf.fallback);
    });

    it('serves a trailing slash with a greedy path, as no HTTP API route may end in "/"', () => {
      // THEN
      for (const route of routeResources) expect(route.Properties.RouteKey).not.toMatch(/\/$/);
      const keys = routeResources.map((route) => String(route.Properties.RouteKey));
      expect(keys).toEqual(expect.arrayContaining(['POST /batch', 'POST /batch/{proxy+}']));
    });

    it('dispatches every request on a route key the handlers know (routeKey() of a row)', () => {
      // THEN
      const handlerKeys = new Set(routes.map(routeKey));
      for (const route of routeResources) expect(handlerKeys).toContain(route.Properties.RouteKey);
    });

    it('integrates every route as a Lambda proxy with payload format 2.0', () => {
      // THEN
      template.resourceCountIs('AWS::ApiGatewayV2::Integration', httpGroups.length);
      for (const integration of Object.values(integrations)) {
        expect(integration.Properties).toMatchObject({
          IntegrationType: 'AWS_PROXY',
          PayloadFormatVersion: '2.0',
        });
      }
    });

    it('leaves CORS to the handlers (no API-level CORS configuration)', () => {
      // THEN
      template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
      template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
      for (const api of Object.values(template.findResources('AWS::ApiGatewayV2::Api'))) {
        expect(api.Properties.CorsConfiguration).toBeUndefined();
      }
    });

    it('auto-deploys the $default stage with JSON access logs to a log group', () => {
      // THEN
      const stages = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
      expect(stages).toHaveLength(1);
      expect(stages[0]?.Properties).toMatchObject({ StageName: '$default', AutoDeploy: true });
      const settings = stages[0]?.Properties.AccessLogSettings;
      expect(settings.DestinationArn['Fn::GetAtt'][1]).toBe('Arn');
      expect(JSON.parse(settings.Format)).toMatchObject({ requestId: '$context.requestId' });
    });

    it('throttles every route, and each private route lower, so a flood stops at API Gateway (429)', () => {
      // THEN
      const [stage] = Object.values(template.findResources('AWS::ApiGatewayV2::Stage'));
      expect(stage?.Properties.DefaultRouteSettings).toEqual({
        ThrottlingRateLimit: defaultApiThrottle.rateLimit,
        ThrottlingBurstLimit: defaultApiThrottle.burstLimit,
      });
      const privateKeys = routes.filter(isPrivateRoute).map(routeKey);
      expect(Object.keys(stage?.Properties.RouteSettings as Json).sort()).toEqual(privateKeys.sort());
      // The stage is created after the routes its settings name (API Gateway refuses unknown route keys).
      const routeKeyOf = Object.fromEntries(
        Object.entries(template.findResources('AWS::ApiGatewayV2::Route')).map(([id, route]) => [
          route.Properties.RouteKey as string,
          id,
        ]),
      );
      expect([...(stage?.DependsOn as string[])].sort()).toEqual(
        expect.arrayContaining(privateKeys.map((key) => routeKeyOf[key]).sort()),
      );
      for (const key of privateKeys)
        expect(stage?.Properties.RouteSettings[key]).toEqual({
          ThrottlingRateLimit: defaultPrivateRouteThrottle.rateLimit,
          ThrottlingBurstLimit: defaultPrivateRouteThrottle.burstLimit,
        });
    });

    it('lets API Gateway invoke each HTTP function, including through the $default route', () => {
      // THEN one permission per function; `<api>/*/*` matches the $default route's `<api>/$default/$default`
      const permissions = Object.values(template.findResources('AWS::Lambda::Permission'));
      for (const group of httpGroups) {
        const own = permissions.filter(
          (p) => p.Properties.FunctionName['Fn::GetAtt'][0] === functionIdOf[group],
        );
        expect({ group, count: own.length }).toEqual({ group, count: 1 });
        expect(own[0]?.Properties.Principal).toBe('apigateway.amazonaws.com');
      }
      const fallback = permissions.find(
        (p) => p.Properties.FunctionName['Fn::GetAtt'][0] === functionIdOf.fallback,
      );
      expect(JSON.stringify(fallback?.Properties.SourceArn)).toMatch(/"\/\*\/\*"\]/);
    });

    it('outputs the API URL under the id ApiUrl', () => {
      // THEN
      template.hasOutput('ApiUrl', {});
    });
  });

  describe('ingest consumer', () => {
    it('consumes the ingest queue with the event source settings of definitions.ts', () => {
      // THEN
      // The consumer's, the exports function's and the query function's (async runs).
      template.resourceCountIs('AWS::Lambda::EventSourceMapping', 3);
      const mapping = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).find(
        (candidate) => candidate.Properties.FunctionName.Ref === functionIdOf.consumer,
      );
      expect(mapping?.Properties).toMatchObject({
        FunctionName: { Ref: functionIdOf.consumer },
        BatchSize: consumerEventSource.batchSize,
        MaximumBatchingWindowInSeconds: consumerEventSource.maxBatchingWindowSeconds,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: consumerEventSource.maxConcurrency },
      });
      expect(refersTo(mapping?.Properties.EventSourceArn, ingestQueueId)).toBe(true);
    });

    it('lets the consumer send to the exports queue, and nothing else of SQS', () => {
      // THEN
      expect(actionsOn('consumer', exportsQueueId)).toEqual(['sqs:SendMessage']);
      expect(actionsOn('consumer', ingestQueueId)).not.toContain('sqs:SendMessage');
    });
  });

  describe('exports', () => {
    it('consumes the exports queue with the event source settings of definitions.ts', () => {
      // THEN
      const mapping = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).find(
        (candidate) => candidate.Properties.FunctionName.Ref === functionIdOf.exports,
      );
      expect(mapping?.Properties).toMatchObject({
        BatchSize: exportsEventSource.batchSize,
        MaximumBatchingWindowInSeconds: exportsEventSource.maxBatchingWindowSeconds,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
        ScalingConfig: { MaximumConcurrency: exportsEventSource.maxConcurrency },
      });
      expect(refersTo(mapping?.Properties.EventSourceArn, exportsQueueId)).toBe(true);
      expect(functions[functionIdOf.exports]?.Properties.Timeout).toBe(
        exportsEventSource.functionTimeoutSeconds,
      );
      // The queue's visibility timeout covers a whole invocation several times over.
      expect(exportsQueue.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(
        6 * exportsEventSource.functionTimeoutSeconds,
      );
    });

    it('runs the plugin jobs every minute, with no retries', () => {
      // THEN
      template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [
          Match.objectLike({
            Arn: { 'Fn::GetAtt': [functionIdOf.exports, 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: 0 },
          }),
        ],
      });
    });

    it("grants the exports function no S3 permission: uploads use each config's own credentials", () => {
      // THEN
      const actions = statementsOf('exports').flatMap(actionsOf);
      expect(actions.filter((action) => action.startsWith('s3:'))).toEqual([]);
      expect(actions).not.toContain('sqs:SendMessage');
    });
  });

  describe('monitoring', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    const alarmOn = (metricName: string): Json | undefined =>
      alarms.find((alarm) => alarm.Properties.MetricName === metricName)?.Properties as Json | undefined;

    it('keeps the logical ids of the alarms, hence their names and what operators subscribed to them', () => {
      // THEN
      expect(Object.keys(template.findResources('AWS::CloudWatch::Alarm')).sort()).toEqual([
        'MonitoringCaptureServerErrors1C8D1676',
        'MonitoringCohortCalculationFailuresC891DA08',
        'MonitoringConsumerErrorsC47BA606',
        'MonitoringDeadLetterQueueNotEmptyBC52F70B',
        'MonitoringExportsDeadLetterQueueNotEmpty12707288',
        'MonitoringFunctionThrottles03791191',
        'MonitoringFunctionThrottles23BBE9159',
        'MonitoringIngestQueueBacklogA3BAA7DE',
        'MonitoringLakeDeadLetterQueueNotEmpty90F052C9',
      ]);
    });

    it('alarms as soon as one message is visible in the DLQ', () => {
      // THEN
      const alarm = alarmOn('ApproximateNumberOfMessagesVisible');
      expect(alarm).toMatchObject({
        Namespace: 'AWS/SQS',
        Statistic: 'Maximum',
        Period: 60,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
      expect(refersTo(alarm?.Dimensions, deadLetterQueueId)).toBe(true);
    });

    it('names a runbook step that exists in the README in every alarm description', () => {
      // THEN
      const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
      expect(alarms.length).toBeGreaterThanOrEqual(3);
      for (const alarm of alarms) {
        const step = /Runbook \(README\) step \d+ "([^"]+)"/.exec(String(alarm.Properties.AlarmDescription));
        expect(step).not.toBeNull();
        expect(readme).toContain(`${step![0].split(' step ')[1]!.split(' ')[0]}. ${step![1]}`);
      }
    });

    it('alarms when cohort calculations fail or crash for three 5-minute periods in a row', () => {
      // THEN
      const alarm = alarms.find((candidate) =>
        String(candidate.Properties.AlarmDescription).includes('cohort calculations failed'),
      )?.Properties;
      expect(alarm).toMatchObject({ Threshold: 0, EvaluationPeriods: 3, TreatMissingData: 'notBreaching' });
      const names = (alarm?.Metrics as Json[])
        .filter((query) => query.MetricStat)
        .map((query) => query.MetricStat.Metric.MetricName as string)
        .sort();
      expect(names).toEqual(['CohortCalculationFailures', 'Errors']);
    });

    it('alarms when the oldest ingest message is older than five minutes', () => {
      // THEN
      const alarm = alarmOn('ApproximateAgeOfOldestMessage');
      expect(alarm).toMatchObject({
        Namespace: 'AWS/SQS',
        Statistic: 'Maximum',
        Threshold: 300,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
      expect(refersTo(alarm?.Dimensions, ingestQueueId)).toBe(true);
    });

    it('alarms on consumer errors, which a batch whose every record failed raises too', () => {
      // THEN
      const alarm = alarmOn('Errors');
      expect(alarm).toMatchObject({
        Namespace: 'AWS/Lambda',
        Statistic: 'Sum',
        Threshold: 0,
        TreatMissingData: 'notBreaching',
      });
      expect(alarm?.Dimensions).toEqual([{ Name: 'FunctionName', Value: { Ref: functionIdOf.consumer } }]);
      expect(String(alarm?.AlarmDescription)).toContain('failed every record of a batch');
    });

    /** The metrics an alarm's metric-math expression reads. */
    const mathMetricsOf = (alarm: Json | undefined): Json[] =>
      ((alarm?.Metrics ?? []) as Json[])
        .filter((entry) => entry.MetricStat)
        .map((entry) => (entry.MetricStat as Json).Metric as Json);

    it('alarms on capture 5xx: answers of 500 and above, crashes and throttles of the capture function', () => {
      // THEN
      const alarm = alarms.find((candidate) =>
        String(candidate.Properties.AlarmDescription).includes('Capture answers 5xx'),
      )?.Properties as Json | undefined;
      expect(alarm).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
      const metrics = mathMetricsOf(alarm);
      expect(metrics).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            Namespace: 'Flock',
            MetricName: 'HttpServerErrors',
            Dimensions: [{ Name: 'service', Value: 'capture' }],
          }),
          expect.objectContaining({ Namespace: 'AWS/Lambda', MetricName: 'Errors' }),
          expect.objectContaining({ Namespace: 'AWS/Lambda', MetricName: 'Throttles' }),
        ]),
      );
      for (const metric of metrics.filter((candidate) => candidate.Namespace === 'AWS/Lambda'))
        expect(metric.Dimensions).toEqual([{ Name: 'FunctionName', Value: { Ref: functionIdOf.capture } }]);
    });

    it('alarms on throttles of every function, at most 10 metrics per alarm', () => {
      // THEN
      const throttleAlarms = alarms
        .map((alarm) => alarm.Properties as Json)
        .filter((alarm) => String(alarm.AlarmDescription).includes('Functions are throttled'));
      const throttled = throttleAlarms.flatMap((alarm) => {
        const metrics = mathMetricsOf(alarm);
        expect(metrics.length).toBeLessThanOrEqual(10);
        return metrics.map((metric) => (metric.Dimensions as Json[])[0]!.Value.Ref as string);
      });
      expect(throttled.sort()).toEqual(functionNames.map((name) => functionIdOf[name]).sort());
    });

    /** The dashboard's body as JSON (deploy-time tokens replaced by "TOKEN"), and its graphs' metrics. */
    const dashboardMetricsOf = (of: Template): { named: string[]; expressions: string[] } => {
      const [dashboard] = Object.values(of.findResources('AWS::CloudWatch::Dashboard'));
      const parts = dashboard?.Properties.DashboardBody['Fn::Join'][1] as unknown[];
      const body = JSON.parse(
        parts.map((part) => (typeof part === 'string' ? part : 'TOKEN')).join(''),
      ) as Json;
      const entries = (body.widgets as Json[]).flatMap(
        (widget) => (widget.properties.metrics ?? []) as unknown[][],
      );
      return {
        named: entries.flatMap(([namespace, name]) =>
          typeof namespace === 'string' && typeof name === 'string' ? [`${namespace}/${name}`] : [],
        ),
        expressions: entries.flatMap(([first]) => {
          const expression = (first as { expression?: unknown } | undefined)?.expression;
          return typeof expression === 'string' ? [expression] : [];
        }),
      };
    };

    it('draws where events went, the latencies and the per-project counts from the functions metrics', () => {
      // THEN
      const { named, expressions } = dashboardMetricsOf(template);
      for (const metric of [
        'EventsReceived',
        'EventsQueued',
        'EventsStored',
        'EventsDuplicate',
        'EventsAlreadyStored',
        'QueueSendFailures',
        'FailedMessages',
        'FailedBatches',
        'DeadLettered',
        'CaptureLatency',
        'DecideLatency',
      ])
        expect(named).toContain(`Flock/${metric}`);
      expect(expressions).toEqual(
        expect.arrayContaining([
          `SEARCH('{Flock,service} MetricName="HttpServerErrors"', 'Sum', 60)`,
          `SEARCH('{Flock,service,reason} MetricName="EventsDropped"', 'Sum', 60)`,
          `SEARCH('{Flock,service,stage} MetricName="ConsumerStageDuration"', 'Average', 60)`,
          `SEARCH('{Flock,service,stage} MetricName="ConsumerStageFailures"', 'Sum', 60)`,
          `SEARCH('{Flock,service,project} MetricName="EventsReceived"', 'Sum', 300)`,
          `SEARCH('{Flock,service,project} MetricName="EventsStored"', 'Sum', 300)`,
        ]),
      );
    });

    it('reserves concurrency: capture, flags and the cohort calculation capped, the consumer guaranteed its event source maximum', () => {
      // THEN
      const reserved = Object.fromEntries(
        functionNames.map((name) => [
          name,
          functions[functionIdOf[name]]?.Properties.ReservedConcurrentExecutions as number | undefined,
        ]),
      );
      expect(reserved).toEqual({
        ...Object.fromEntries(functionNames.map((name) => [name, undefined])),
        capture: defaultReservedConcurrency.capture,
        flags: defaultReservedConcurrency.flags,
        consumer: consumerEventSource.maxConcurrency,
        cohort_calculation: cohortCalculationConcurrency,
        lake_compaction: 1,
      });
      // GIVEN an app deployed with -c reservedConcurrency=false (accounts with a low concurrency limit)
      const smallStack = synthesizedApp({ reservedConcurrency: 'false' }).stateless;
      for (const fn of Object.values(smallStack.findResources('AWS::Lambda::Function')))
        expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
    });

    it('tells every function whether to emit per-project metrics, and can turn them off', () => {
      // THEN
      for (const fn of Object.values(functions))
        expect(fn.Properties.Environment.Variables[envNames.projectMetrics]).toBe('true');
      // GIVEN an app deployed with -c projectMetrics=false
      const quietStack = synthesizedApp({ projectMetrics: 'false' }).stateless;
      for (const fn of Object.values(quietStack.findResources('AWS::Lambda::Function')))
        expect(fn.Properties.Environment.Variables[envNames.projectMetrics]).toBe('false');
      expect(
        dashboardMetricsOf(quietStack).expressions.filter((search) => search.includes('project')),
      ).toEqual([]);
    });

    it('draws queue depth and age, DLQ depth, and function errors and duration on one dashboard', () => {
      // THEN
      template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
      const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
      const body = JSON.stringify(dashboard?.Properties.DashboardBody);
      for (const metric of [
        'ApproximateNumberOfMessagesVisible',
        'ApproximateAgeOfOldestMessage',
        'Errors',
        'Duration',
      ]) {
        expect(body).toContain(metric);
      }
      expect(refersTo(body, deadLetterQueueId)).toBe(true);
      for (const name of functionNames) expect(body).toContain(functionIdOf[name]);
    });
  });
});

describe('GeoIP database', () => {
  const s3Actions = (name: FunctionName, stack = template): Json[] =>
    statementsOf(name, stack).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('s3:')),
    );

  // The lake writer's and the query function's own S3 access (the lake bucket's events/) is checked in
  // test/cdk/lake.test.ts and test/cdk/query-function.test.ts.
  const notLake = functionNames.filter((name) => !['lake', 'lake_compaction', 'query'].includes(name));

  it('by default names no database and grants no S3 access: the consumer uses its bundled files', () => {
    // THEN (the lake functions' own S3 access is checked in test/cdk/lake.test.ts and query-function.test.ts)
    for (const name of notLake) {
      expect(functions[functionIdOf[name]]?.Properties.Environment.Variables).not.toHaveProperty(
        envNames.geoipDatabase,
      );
      expect(s3Actions(name)).toEqual([]);
    }
  });

  it('with -c geoipDatabase=s3://bucket/key tells the consumer the object and lets it read exactly that', () => {
    // GIVEN an app deployed with an operator's official MaxMind database
    const url = 's3://flock-geo-data/maxmind/GeoLite2-City.mmdb';
    // WHEN (cdk-nag runs too)
    const stack = synthesizedApp({ geoipDatabase: url }).stateless;
    const ids = functionIdsOf(stack);
    const fns = stack.findResources('AWS::Lambda::Function');
    // THEN the consumer alone has the variable and one statement: GetObject on that object
    expect(fns[ids.consumer]?.Properties.Environment.Variables[envNames.geoipDatabase]).toBe(url);
    expect(s3Actions('consumer', stack)).toEqual([
      {
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: {
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, ':s3:::flock-geo-data/maxmind/GeoLite2-City.mmdb'],
          ],
        },
      },
    ]);
    for (const name of notLake.filter((name) => name !== 'consumer')) {
      expect(fns[ids[name]]?.Properties.Environment.Variables).not.toHaveProperty(envNames.geoipDatabase);
      expect(s3Actions(name, stack)).toEqual([]);
    }
  });

  it('refuses a database that is not an s3://bucket/key URL', () => {
    for (const geoipDatabase of [
      'https://example.com/GeoLite2-City.mmdb',
      's3://bucket-only',
      's3://bucket/',
    ])
      expect(() => buildApp(testApp({ context: { geoipDatabase } }).app)).toThrow(/s3:\/\/bucket\/key/);
  });
});

describe('CfnFunction lookup', () => {
  it('finds each function by the logical id the stack gives it', () => {
    // THEN the service-name lookup above agrees with the constructs themselves
    for (const group of httpGroups) expect(ids.functions[group]).toBe(functionIdOf[group]);
  });
});

describe('trusted proxies', () => {
  const captureVariables = (stack: Template): Record<string, string> =>
    stack.findResources('AWS::Lambda::Function')[functionIdsOf(stack).capture]?.Properties.Environment
      .Variables as Record<string, string>;

  it('tells capture alone, 0 by default: the source address API Gateway saw', () => {
    // THEN
    expect(captureVariables(template)[envNames.trustedProxies]).toBe('0');
    for (const name of functionNames.filter((name) => name !== 'capture'))
      expect(functions[functionIdOf[name]]?.Properties.Environment.Variables).not.toHaveProperty(
        envNames.trustedProxies,
      );
  });

  it('with -c trustedProxies=1 (CloudFront in front) tells capture to trust one proxy', () => {
    // GIVEN
    // WHEN
    const stack = synthesizedApp({ trustedProxies: '1' }).stateless;
    // THEN
    expect(captureVariables(stack)[envNames.trustedProxies]).toBe('1');
  });

  it('refuses a count that is not a whole number from 0 to the bound', () => {
    for (const trustedProxies of ['-1', '1.5', 'one', '11'])
      expect(() => buildApp(testApp({ context: { trustedProxies } }).app)).toThrow(/trustedProxies must be/);
  });
});
