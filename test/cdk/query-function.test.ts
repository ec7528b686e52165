import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { buildApp } from '../../lib/app';
import { queryFunctionMemoryMb } from '../../functions/query/settings';
import { testApp } from '../helpers/cdk-app';

// GIVEN the Flock app, synthesized without bundling
const { app } = testApp();
const { stateless } = buildApp(app);
const template = Template.fromStack(stateless);
// Synthesized templates are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const query = stateless.httpFunctions.query;
const functionId = stateless.getLogicalId(query.function.node.defaultChild as CfnFunction);
const roleId = template.findResources('AWS::Lambda::Function')[functionId]?.Properties.Role['Fn::GetAtt'][0];
const statementsOf = (service: string): Json[] =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[])
    .filter((statement) =>
      [statement.Action as string | string[]].flat().some((a) => a.startsWith(`${service}:`)),
    );
const s3Statements = (): Json[] => statementsOf('s3');

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

  it('writes its result cache and nothing else of the table but the key usage: PutItem on QCACHE# only', () => {
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
    expect(Object.keys(byAction).sort()).toEqual(['dynamodb:PutItem', 'dynamodb:UpdateItem']);
    expect(byAction['dynamodb:PutItem']).toContain('"QCACHE#*"');
    expect(byAction['dynamodb:PutItem']).not.toMatch(/"(?!QCACHE#)[A-Z]+#\*"/);
  });
});
