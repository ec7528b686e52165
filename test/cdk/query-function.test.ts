import { queryFunctionMemoryMb } from '../../functions/query/settings';
import { queryRunsEventSource } from '../../functions/shared/queue/definitions';
import { synthesizedApp } from '../helpers/cdk-app';

// GIVEN the Flock app, synthesized without bundling
const { stateless: template, ids } = synthesizedApp();
// Synthesized templates are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const functionId = ids.functions.query;
const roleId = template.findResources('AWS::Lambda::Function')[functionId]?.Properties.Role['Fn::GetAtt'][0];
const statementsOfRole = (role: string): Json[] =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as Json[]).some((ref) => ref.Ref === role))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[]);
const actionsOf = (statement: Json): string[] => [statement.Action as string | string[]].flat();
/** The query function's statements on the lake bucket (not the Athena results bucket). */
const s3Statements = (): Json[] =>
  statementsOfRole(roleId).filter(
    (statement) =>
      actionsOf(statement).some((a) => a.startsWith('s3:')) &&
      JSON.stringify(statement.Resource).includes('EventsLakeBucket') &&
      !actionsOf(statement).includes('s3:GetBucketLocation'),
  );
/** The query function's statements on `service`'s actions. */
const statementsOf = (service: string): Json[] =>
  statementsOfRole(roleId).filter((statement) =>
    actionsOf(statement).some((a) => a.startsWith(`${service}:`)),
  );

describe('the query function', () => {
  it('has the memory DuckDB is given, and the lake bucket named in its environment', () => {
    const properties = template.findResources('AWS::Lambda::Function')[functionId]?.Properties;
    expect(properties.MemorySize).toBe(queryFunctionMemoryMb);
    expect(properties.Architectures).toEqual(['arm64']);
    expect(Object.keys(properties.Environment.Variables)).toContain('LAKE_BUCKET_NAME');
  });

  it("reads the lake's events/ prefix only: get and list there, no write, nothing else of the bucket", () => {
    const statements = s3Statements();
    expect(statements.flatMap((statement) => [statement.Action as string].flat()).sort()).toEqual([
      's3:GetObject',
      's3:ListBucket',
    ]);
    const get = statements.find((statement) => statement.Action === 's3:GetObject')!;
    expect(JSON.stringify(get.Resource)).toMatch(/\/events\/\*"\]\]\}$/);
    const list = statements.find((statement) => statement.Action === 's3:ListBucket')!;
    expect(list.Condition).toEqual({ StringLike: { 's3:prefix': ['events/*'] } });
  });

  it("runs Athena in the lake's workgroup only, reads the lake's Glue table, and its results bucket", () => {
    const statements = statementsOfRole(roleId);
    const athena = statements.find((statement) => actionsOf(statement).some((a) => a.startsWith('athena:')))!;
    expect(actionsOf(athena).sort()).toEqual([
      'athena:GetQueryExecution',
      'athena:GetQueryResults',
      'athena:StartQueryExecution',
      'athena:StopQueryExecution',
    ]);
    expect(JSON.stringify(athena.Resource)).toMatch(
      /:workgroup\/",\{"Fn::ImportValue":"[^"]*EventsLakeWorkGroup[^"]*"\}\]\]\}$/,
    );
    const glue = statements.find((statement) => actionsOf(statement).some((a) => a.startsWith('glue:')))!;
    expect(actionsOf(glue).sort()).toEqual(['glue:GetDatabase', 'glue:GetTable']);
    expect(JSON.stringify(glue.Resource)).toContain(':table/flockstateful_lake/events"');
    const results = statements.filter((statement) =>
      JSON.stringify(statement.Resource).includes('EventsLakeAthenaResults'),
    );
    expect(results.flatMap(actionsOf).sort()).toEqual([
      's3:AbortMultipartUpload',
      's3:GetBucketLocation',
      's3:GetObject',
      's3:ListBucket',
      's3:ListBucketMultipartUploads',
      's3:ListMultipartUploadParts',
      's3:PutObject',
    ]);
    // Nothing deletes results, and no statement has a wildcard action.
    expect(results.flatMap(actionsOf).filter((a) => a.includes('Delete'))).toEqual([]);
    expect(statements.flatMap(actionsOf).filter((a) => a.includes('*'))).toEqual([]);
  });

  it('names its engine, workgroup and database, and no other function may run Athena', () => {
    const variables = template.findResources('AWS::Lambda::Function')[functionId]?.Properties.Environment
      .Variables as Json;
    expect(variables).toMatchObject({
      FLOCK_QUERY_ENGINE: 'auto',
      FLOCK_LAKE_DATABASE: 'flockstateful_lake',
    });
    expect(JSON.stringify(variables.FLOCK_ATHENA_WORKGROUP)).toContain('EventsLakeWorkGroup');
    const others = Object.entries(template.findResources('AWS::Lambda::Function'))
      .filter(([id]) => id !== functionId)
      .map(([, fn]) => fn.Properties.Role?.['Fn::GetAtt']?.[0] as string | undefined)
      .filter((role): role is string => role !== undefined && role !== roleId);
    const athenaElsewhere = others
      .flatMap(statementsOfRole)
      .filter((statement) =>
        actionsOf(statement).some((a) => a.startsWith('athena:') || a.startsWith('glue:')),
      );
    expect(athenaElsewhere).toEqual([]);
  });

  it('takes its engine from -c queryEngine, and refuses one that does not exist', () => {
    const engineOf = (context: Record<string, string>): unknown => {
      const built = synthesizedApp(context);
      return built.stateless.findResources('AWS::Lambda::Function')[built.ids.functions.query]?.Properties
        .Environment.Variables.FLOCK_QUERY_ENGINE;
    };
    expect(engineOf({ queryEngine: 'duckdb' })).toBe('duckdb');
    expect(() => engineOf({ queryEngine: 'presto' })).toThrow(
      /queryEngine must be one of duckdb, athena, auto/,
    );
  });

  it('writes its result cache, async statuses and key usage only: QCACHE#, QSTATUS#, PAK#', () => {
    const writes = statementsOf('dynamodb').filter((statement) =>
      [statement.Action as string | string[]]
        .flat()
        .some((action) => /:(Put|Update|Delete|BatchWrite)Item$/.test(action)),
    );
    const byAction = Object.fromEntries(
      writes.map((statement) => [
        [statement.Action as string | string[]].flat().join(','),
        JSON.stringify(statement.Condition),
      ]),
    );
    expect(Object.keys(byAction).sort()).toEqual([
      'dynamodb:DeleteItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ]);
    const prefixes = (action: string): string[] =>
      [...byAction[action]!.matchAll(/"([A-Z]+#)\*"/g)].map((match) => match[1]!).sort();
    expect(prefixes('dynamodb:PutItem')).toEqual(['QCACHE#', 'QSTATUS#']);
    expect(prefixes('dynamodb:UpdateItem')).toEqual(['PAK#', 'QSTATUS#']);
    expect(prefixes('dynamodb:DeleteItem')).toEqual(['QSTATUS#']);
  });

  it('sends async runs to its own queue only, which its event source runs one at a time', () => {
    const sqs = statementsOf('sqs');
    const send = sqs.filter((statement) => actionsOf(statement).includes('sqs:SendMessage'));
    expect(send).toHaveLength(1);
    expect(actionsOf(send[0]!)).toEqual(['sqs:SendMessage']);
    const [queueId] = Object.keys(template.findResources('AWS::SQS::Queue')).filter((id) =>
      id.startsWith('QueryRunsQueuesQueue'),
    );
    expect(send[0]!.Resource).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    // Consuming is the event source's grant: receive and delete on that queue, nothing else of SQS.
    const consume = sqs.filter((statement) => statement !== send[0]);
    expect(consume.flatMap(actionsOf).sort()).toEqual([
      'sqs:ChangeMessageVisibility',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
      'sqs:GetQueueUrl',
      'sqs:ReceiveMessage',
    ]);
    expect(consume.map((statement): unknown => statement.Resource)).toEqual([
      { 'Fn::GetAtt': [queueId, 'Arn'] },
    ]);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId },
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: queryRunsEventSource.maxConcurrency },
    });
    const variables = template.findResources('AWS::Lambda::Function')[functionId]?.Properties.Environment
      .Variables as Json;
    expect(variables.FLOCK_QUERY_RUNS_QUEUE_URL).toEqual({ Ref: queueId });
    // No other function may send to it.
    const others = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((policy) => !(policy.Properties.Roles as Json[]).some((ref) => ref.Ref === roleId))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[])
      .filter((statement) => JSON.stringify(statement.Resource).includes(queueId!));
    expect(others).toEqual([]);
  });
});
