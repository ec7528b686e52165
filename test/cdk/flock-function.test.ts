import type { CfnElement } from 'aws-cdk-lib';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { eventsTable, singleTable } from '../../functions/shared/db/schema';
import { FlockFunction, handlerEntry } from '../../lib/flock-function';
import { FlockTable } from '../../lib/flock-table';
import { synthesizedApp, testApp } from '../helpers/cdk-app';

// Synthesized templates are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/** A stack with one FlockFunction and both tables, as the stateless stack builds them. */
function oneFunction(): { stack: Stack; fn: FlockFunction; events: FlockTable; main: FlockTable } {
  const stack = new Stack(testApp().app, 'One');
  const fn = new FlockFunction(stack, 'SchemaFunction', {
    entry: handlerEntry('schema'),
    serviceName: 'schema',
  });
  return {
    stack,
    fn,
    events: new FlockTable(stack, 'FlockEvents', eventsTable),
    main: new FlockTable(stack, 'FlockMain', singleTable),
  };
}

/** The statements of the policies attached to `fn`'s role. */
function statementsOf(stack: Stack, fn: FlockFunction): Json[] {
  const roleId = stack.getLogicalId(fn.role.node.defaultChild as CfnElement);
  return Object.values(Template.fromStack(stack).findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[]);
}

describe('FlockFunction', () => {
  it('is a construct that owns its Lambda function (its default child), role and log group', () => {
    // GIVEN / WHEN
    const { fn } = oneFunction();
    // THEN
    expect(fn.node.defaultChild).toBe(fn.function);
    for (const child of [fn.function, fn.role, fn.logGroup]) expect(child.node.scope).toBe(fn);
    expect(fn.grantPrincipal).toBe(fn.role);
  });

  it('keeps the logical id each function had as a NodejsFunction subclass', () => {
    // GIVEN the app as deployed before FlockFunction became a construct (plus the lake, upkeep and
    // query functions added since, whose ids are new)
    const { functions } = synthesizedApp().ids;
    // THEN a function is updated in place, never replaced
    expect(functions.capture).toBe('CaptureFunctionA800B8CD');
    expect(functions.plugin_configs).toBe('PluginConfigsFunctionEB92FE95');
    expect(functions.consumer).toBe('ConsumerFunction40CB859D');
    expect(functions.cohort_calculation).toBe('CohortCalculationFunctionC6D53A8F');
    expect(functions.exports).toBe('ExportsFunctionC992267A');
  });

  it('keeps the logical id each log group had, so an upgrade neither replaces a group nor deletes its logs', () => {
    // GIVEN the app as deployed before FlockFunction became a construct (plus the lake, upkeep and
    // query functions added since, whose ids are new)
    // WHEN
    const template = synthesizedApp().stateless;
    const functionLogGroups = Object.values(template.findResources('AWS::Lambda::Function')).map(
      (fn) => fn.Properties.LoggingConfig.LogGroup.Ref as string,
    );
    // THEN
    expect(functionLogGroups.sort()).toEqual([
      'CaptureFunctionLogs98ECB0F6',
      'CohortCalculationFunctionLogs2ABBFD6F',
      'CohortsFunctionLogs12F495A7',
      'ConsumerFunctionLogsAC3C2CB2',
      'EventDefinitionsFunctionLogs66842ED2',
      'EventsFunctionLogsCE0815EC',
      'ExportsFunctionLogs6627A900',
      'FallbackFunctionLogs0C5BFD86',
      'FeatureFlagsFunctionLogs16140523',
      'FlagsFunctionLogsD16B5946',
      'LakeCompactionFunctionLogs7B9BD050',
      'LakeFunctionLogsA41811A7',
      'PersonalApiKeysFunctionLogsB764E6D9',
      'PersonsFunctionLogsA1DD39F5',
      'PluginConfigsFunctionLogsF675F1EE',
      'PluginsFunctionLogs5FD76DAA',
      'ProjectsFunctionLogsE8897C33',
      'QueryFunctionLogs6912F051',
      'SchemaFunctionLogs16362EB5',
      'UsersFunctionLogs5ABD8655',
    ]);
  });

  it('gives its role nothing but writing its own log group until a resource grants more', () => {
    // GIVEN / WHEN
    const { stack, fn } = oneFunction();
    // THEN
    const statements = statementsOf(stack, fn);
    expect(statements).toHaveLength(1);
    expect(statements[0]?.Action).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    expect(JSON.stringify(statements[0]?.Resource)).toContain(
      stack.resolve((fn.logGroup.node.defaultChild as CfnElement).logicalId),
    );
  });

  it('offers the Lambda metrics of its function and the metrics its code emits under its service name', () => {
    // GIVEN / WHEN
    const { fn } = oneFunction();
    const lambdaMetrics = [fn.metricErrors(), fn.metricThrottles(), fn.metricDuration()];
    const emitted = fn.metricEmitted('EventsReceived');
    // THEN
    expect(lambdaMetrics.map((metric) => metric.metricName)).toEqual(['Errors', 'Throttles', 'Duration']);
    for (const metric of lambdaMetrics) {
      expect(metric.namespace).toBe('AWS/Lambda');
      expect(metric.dimensions).toEqual({ FunctionName: fn.function.functionName });
    }
    expect(emitted).toMatchObject({ namespace: 'Flock', statistic: 'Sum', label: 'EventsReceived (schema)' });
    expect(emitted.dimensions).toEqual({ service: 'schema' });
    expect(emitted.period.toSeconds()).toBe(60);
  });
});

describe('FlockTable.grantScoped', () => {
  it("adds one statement per distinct prefix list and one for the indexes to the grantee's role", () => {
    // GIVEN
    const { stack, fn, main } = oneFunction();
    // WHEN
    const grant = main.grantScoped(fn, {
      'dynamodb:GetItem': ['PAK#', 'USER#'],
      'dynamodb:UpdateItem': ['PAK#', 'USER#'],
      'dynamodb:Query': ['PROJECT#'],
    });
    // THEN
    expect(grant.success).toBe(true);
    expect(grant.principalStatements).toHaveLength(3);
    const tableId = stack.getLogicalId(main.node.defaultChild as CfnElement);
    const granted = statementsOf(stack, fn).slice(1);
    const indexArns = singleTable.globalSecondaryIndexes.map((index) => ({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [tableId, 'Arn'] }, `/index/${index.indexName}`]],
    }));
    expect(granted).toEqual([
      {
        Effect: 'Allow',
        Action: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PAK#*', 'USER#*'] } },
      },
      {
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        Resource: { 'Fn::GetAtt': [tableId, 'Arn'] },
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['PROJECT#*'] } },
      },
      {
        Effect: 'Allow',
        Action: 'dynamodb:Query',
        // One resource renders as a value, several as a list.
        Resource: indexArns.length === 1 ? indexArns[0] : indexArns,
      },
    ]);
  });

  it('grants an action of any key without a condition, and no index statement without Query', () => {
    // GIVEN
    const { stack, fn, events } = oneFunction();
    // WHEN
    events.grantScoped(fn, { 'dynamodb:BatchWriteItem': 'any key' });
    // THEN
    expect(statementsOf(stack, fn).slice(1)).toEqual([
      {
        Effect: 'Allow',
        Action: 'dynamodb:BatchWriteItem',
        Resource: { 'Fn::GetAtt': [stack.getLogicalId(events.node.defaultChild as CfnElement), 'Arn'] },
      },
    ]);
  });

  it('reports a grant of no action as not added', () => {
    // GIVEN
    const { fn, events } = oneFunction();
    // WHEN / THEN
    expect(events.grantScoped(fn, {}).success).toBe(false);
  });
});
