import { Template } from 'aws-cdk-lib/assertions';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { build } from 'esbuild';
import { join } from 'node:path';
import { httpGroups } from '../../functions/routes';
import { buildApp } from '../../lib/app';
import type { FunctionAccess } from '../../lib/function-access';
import {
  cohortCalculationAccess,
  consumerAccess,
  exportsAccess,
  httpGroupAccess,
} from '../../lib/function-access';
import { testApp } from '../helpers/cdk-app';

// GIVEN the Flock app, synthesized without bundling
const { app } = testApp();
const { stateful, stateless } = buildApp(app);
const template = Template.fromStack(stateless);
const singleTableId = stateful.getLogicalId(stateful.singleTable.node.defaultChild as CfnTable);

// Synthesized templates are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const functionNames = [...httpGroups, 'consumer', 'cohort_calculation', 'exports'] as const;
type FunctionName = (typeof functionNames)[number];
const accessOf = (name: FunctionName): FunctionAccess =>
  name === 'consumer'
    ? consumerAccess
    : name === 'cohort_calculation'
      ? cohortCalculationAccess
      : name === 'exports'
        ? exportsAccess
        : httpGroupAccess[name];

function statementsOf(name: FunctionName): Json[] {
  const fn =
    name === 'consumer'
      ? stateless.consumer
      : name === 'cohort_calculation'
        ? stateless.cohortCalculation
        : name === 'exports'
          ? stateless.exports
          : stateless.httpFunctions[name];
  const functionId = stateless.getLogicalId(fn.node.defaultChild as CfnFunction);
  const roleId =
    template.findResources('AWS::Lambda::Function')[functionId]?.Properties.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[])
    .filter((statement) =>
      [statement.Action as string | string[]].flat().some((a) => a.startsWith('dynamodb:')),
    );
}

/** The DynamoDB commands a function's code can send: those its tree-shaken bundle constructs. */
const commandActions: Readonly<Record<string, string>> = {
  GetCommand: 'dynamodb:GetItem',
  BatchGetCommand: 'dynamodb:BatchGetItem',
  QueryCommand: 'dynamodb:Query',
  paginateQuery: 'dynamodb:Query',
  PutCommand: 'dynamodb:PutItem',
  UpdateCommand: 'dynamodb:UpdateItem',
  DeleteCommand: 'dynamodb:DeleteItem',
  BatchWriteCommand: 'dynamodb:BatchWriteItem',
  ScanCommand: 'dynamodb:Scan',
  TransactWriteCommand: 'dynamodb:TransactWriteItems',
  TransactGetCommand: 'dynamodb:TransactGetItems',
};

async function actionsCalledBy(name: FunctionName): Promise<string[]> {
  const result = await build({
    entryPoints: [join(__dirname, '../../functions', name, 'handler.ts')],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    logLevel: 'error',
    // Kept external, so the bundle names each command it uses (`import_lib_dynamodb.GetCommand`).
    external: ['@aws-sdk/lib-dynamodb'],
  });
  const code = result.outputFiles[0]!.text;
  return [
    ...new Set(
      Object.entries(commandActions)
        .filter(([command]) => new RegExp(`import_lib_dynamodb\\d*\\.${command}\\b`).test(code))
        .map(([, action]) => action),
    ),
  ].sort();
}

describe('function access: what each function may do is what its code does', () => {
  it.each(functionNames)('%s is granted exactly the DynamoDB actions its code calls', async (name) => {
    // WHEN
    const called = await actionsCalledBy(name);

    // THEN
    const granted = [
      ...new Set(statementsOf(name).flatMap((statement) => [statement.Action as string | string[]].flat())),
    ].sort();
    expect(granted).toEqual(called);
  });

  it.each(functionNames)('%s may address only its partition key prefixes in the single table', (name) => {
    // THEN
    const declared = accessOf(name).singleTable;
    const tableStatements = statementsOf(name).filter(
      (statement) => !JSON.stringify(statement.Resource).includes('/index/'),
    );
    const conditions = tableStatements
      .filter((statement) => JSON.stringify(statement.Resource).includes(singleTableId))
      .map((statement) => statement.Condition as Json | undefined);
    if (!declared) {
      expect(conditions).toEqual([]);
      return;
    }
    expect(conditions).toEqual([
      {
        'ForAllValues:StringLike': {
          'dynamodb:LeadingKeys': declared.leadingKeys!.map((prefix) => `${prefix}*`),
        },
      },
    ]);
  });

  it('lets index queries through without a key condition, and only Query', () => {
    // THEN
    for (const name of functionNames)
      for (const statement of statementsOf(name).filter((s) =>
        JSON.stringify(s.Resource).includes('/index/'),
      )) {
        expect(statement.Action).toBe('dynamodb:Query');
        expect(statement.Condition).toBeUndefined();
      }
  });
});
