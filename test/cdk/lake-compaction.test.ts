import { Duration, Stack } from 'aws-cdk-lib';
import { Schedule } from 'aws-cdk-lib/aws-events';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { envNames } from '../../functions/shared/config';
import { lakeCompaction } from '../../functions/shared/lake/compaction';
import { LakeCompaction } from '../../lib/lake-compaction';
import { FlockStatefulStack } from '../../lib/stateful-stack';
import { testApp } from '../helpers/cdk-app';

// GIVEN the Flock stateful stack and the lake upkeep job in a stack of its own (no stack of the app
// creates the job yet: its asset needs DuckDB's native binding)
const { app } = testApp();
const stateful = new FlockStatefulStack(app, 'FlockStateful');
const stack = new Stack(app, 'LakeCompactionTest');
new LakeCompaction(stack, 'LakeCompaction', {
  resources: {
    eventsTable: stateful.eventsTable,
    singleTable: stateful.singleTable,
    ingestQueue: stateful.ingestQueue,
    exportsQueue: stateful.exportsQueue,
    lakeQueue: stateful.lakeQueue,
    lakeBucket: stateful.lake.bucket,
    lakeQueries: stateful.lake.queries,
    pluginSecretsKey: stateful.pluginSecretsKey,
  },
});
// WHEN it is synthesized
const template = Template.fromStack(stack);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

describe('the lake upkeep job', () => {
  it('runs on its schedule, one run at a time, with room for DuckDB', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: Schedule.rate(Duration.minutes(lakeCompaction.scheduleMinutes)).expressionString,
      Targets: [Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: lakeCompaction.functionTimeoutSeconds,
      ReservedConcurrentExecutions: 1,
      MemorySize: 2048,
      EphemeralStorage: { Size: 2048 },
      Environment: { Variables: Match.objectLike({ [envNames.lakeBucket]: Match.anyValue() }) },
    });
  });

  it('may list, read, write and delete lake files under events/ only, and read projects', () => {
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy: Json) => policy.Properties.PolicyDocument.Statement as Json[],
    );
    const actions = (statement: Json): string[] =>
      (Array.isArray(statement.Action) ? statement.Action : [statement.Action]) as string[];
    const s3 = statements.filter((statement) => actions(statement).some((a) => a.startsWith('s3:')));
    expect(s3.flatMap(actions).sort()).toEqual(
      ['s3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject'].sort(),
    );
    for (const statement of s3) {
      const scoped =
        JSON.stringify(statement.Resource).includes('/events/*') ||
        JSON.stringify(statement.Condition ?? {}).includes('events/*');
      expect(scoped).toBe(true);
    }
    // No queue: it drains nothing and sends nothing.
    expect(statements.flatMap(actions).filter((action) => action.startsWith('sqs:'))).toEqual([]);
    const dynamo = statements.filter((statement) =>
      actions(statement).some((a) => a.startsWith('dynamodb:')),
    );
    expect(dynamo.flatMap(actions)).toEqual(['dynamodb:GetItem']);
  });
});
