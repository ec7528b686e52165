import { build } from 'esbuild';
import { join } from 'node:path';
import { httpGroups } from '../../functions/routes';
import type { FunctionAccess } from '../../lib/function-access';
import {
  cohortCalculationAccess,
  consumerAccess,
  exportsAccess,
  httpGroupAccess,
  lakeAccess,
} from '../../lib/function-access';
import { envNames } from '../../functions/shared/config';
import { keys } from '../../functions/shared/db/keys';
import { anyKey, grantedActions } from '../../lib/table-access';
import { synthesizedApp } from '../helpers/cdk-app';

// GIVEN the Flock app, synthesized without bundling (once for every CDK test file)
const { stateless: template, ids } = synthesizedApp();
const singleTableId = ids.stateful.singleTable;

// Synthesized templates are untyped JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

const functionNames = [...httpGroups, 'consumer', 'cohort_calculation', 'exports', 'lake'] as const;
type FunctionName = (typeof functionNames)[number];
const accessOf = (name: FunctionName): FunctionAccess =>
  name === 'consumer'
    ? consumerAccess
    : name === 'cohort_calculation'
      ? cohortCalculationAccess
      : name === 'exports'
        ? exportsAccess
        : name === 'lake'
          ? lakeAccess
          : httpGroupAccess[name];

/** Every statement of the policies attached to the function's role. */
function roleStatementsOf(name: FunctionName): Json[] {
  const functionId = ids.functions[name];
  const roleId =
    template.findResources('AWS::Lambda::Function')[functionId]?.Properties.Role['Fn::GetAtt'][0];
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as Json[]).some((role) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Json[]);
}

function statementsOf(name: FunctionName): Json[] {
  return roleStatementsOf(name).filter((statement) =>
    [statement.Action as string | string[]].flat().some((a) => a.startsWith('dynamodb:')),
  );
}

/** The `dynamodb:LeadingKeys` prefixes of the single-table statement granting `action`; undefined: none. */
function leadingKeysOf(name: FunctionName, action: string): string[] | undefined {
  const statement = statementsOf(name).find(
    (s) =>
      JSON.stringify(s.Resource).includes(singleTableId) &&
      !JSON.stringify(s.Resource).includes('/index/') &&
      [s.Action as string | string[]].flat().includes(action),
  );
  const patterns = statement?.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] as
    string[] | undefined;
  return patterns?.map((pattern) => pattern.replace(/\*$/, ''));
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

/** The same for the low-level client's commands (functions/shared/db/client.ts `lowLevelClient`). */
const lowLevelActions: Readonly<Record<string, string>> = {
  GetItemCommand: 'dynamodb:GetItem',
  BatchGetItemCommand: 'dynamodb:BatchGetItem',
  QueryCommand: 'dynamodb:Query',
  PutItemCommand: 'dynamodb:PutItem',
  UpdateItemCommand: 'dynamodb:UpdateItem',
  DeleteItemCommand: 'dynamodb:DeleteItem',
  BatchWriteItemCommand: 'dynamodb:BatchWriteItem',
  ScanCommand: 'dynamodb:Scan',
  TransactWriteItemsCommand: 'dynamodb:TransactWriteItems',
  TransactGetItemsCommand: 'dynamodb:TransactGetItems',
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
    // DuckDB's native bindings stay out as they do in the lake and query functions' assets.
    external: [
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/client-dynamodb',
      '@duckdb/node-bindings',
      '@duckdb/node-bindings-*',
    ],
  });
  const code = result.outputFiles[0]!.text;
  return [
    ...new Set([
      ...Object.entries(commandActions)
        .filter(([command]) => new RegExp(`import_lib_dynamodb\\d*\\.${command}\\b`).test(code))
        .map(([, action]) => action),
      ...Object.entries(lowLevelActions)
        .filter(([command]) => new RegExp(`import_client_dynamodb\\d*\\.${command}\\b`).test(code))
        .map(([, action]) => action),
    ]),
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

  it.each(functionNames)("%s may address, with each action, only that action's key prefixes", (name) => {
    // THEN
    const declared = accessOf(name).singleTable;
    const tableStatements = statementsOf(name).filter(
      (statement) =>
        JSON.stringify(statement.Resource).includes(singleTableId) &&
        !JSON.stringify(statement.Resource).includes('/index/'),
    );
    if (!declared) {
      expect(tableStatements).toEqual([]);
      return;
    }
    const tableActions = grantedActions(declared).filter(([, prefixes]) => prefixes.length > 0);
    expect(
      tableStatements.flatMap((statement) => [statement.Action as string | string[]].flat()).sort(),
    ).toEqual(tableActions.map(([action]) => action).sort());
    for (const [action, prefixes] of tableActions)
      expect(leadingKeysOf(name, action)).toEqual(prefixes === anyKey ? undefined : prefixes);
  });

  it('keeps plugin configs, which hold sealed secrets, from every function but their API, the consumer and exports', () => {
    // THEN
    const readers = functionNames.filter((name) =>
      statementsOf(name).some(
        (statement) =>
          JSON.stringify(statement.Resource).includes(singleTableId) &&
          !JSON.stringify(statement.Resource).includes('/index/') &&
          (statement.Condition === undefined ||
            JSON.stringify(statement.Condition).includes('"PLUGINCONFIG#*"')),
      ),
    );
    expect(readers.sort()).toEqual(['consumer', 'exports', 'plugin_configs']);
    // Whatever partition the configs live in (keys.ts), capture and flags cannot read it.
    const configPartition = `${keys.pluginConfig(1, 1).PK.split('#')[0]}#`;
    for (const name of ['capture', 'flags'] as const)
      for (const action of ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'])
        expect(leadingKeysOf(name, action) ?? []).not.toContain(configPartition);
  });

  it('grants no action on every prefix: flags updates only overrides and key usage, not projects, tokens or persons', () => {
    // THEN
    expect(leadingKeysOf('flags', 'dynamodb:UpdateItem')).toEqual(['PAK#', 'FLAGHASH#']);
    expect(leadingKeysOf('flags', 'dynamodb:BatchGetItem')).not.toContain('PERSON#');
    expect(leadingKeysOf('capture', 'dynamodb:GetItem')).toEqual(['TOKEN#', 'PAK#', 'USER#', 'PROJECT#']);
    // Across all functions, some action is narrower than the function's whole prefix list.
    const narrowed = functionNames.filter((name) => {
      const grant = accessOf(name).singleTable;
      if (!grant) return false;
      const all = new Set(
        grantedActions(grant).flatMap(([, prefixes]) => (prefixes === anyKey ? [] : prefixes)),
      );
      return grantedActions(grant).some(([, prefixes]) => prefixes !== anyKey && prefixes.length < all.size);
    });
    expect(narrowed.length).toBeGreaterThan(10);
  });
});

describe('function access: the plugin secrets key', () => {
  const kmsStatements = (name: FunctionName): Json[] =>
    roleStatementsOf(name).filter((statement) =>
      [statement.Action as string | string[]].flat().some((a) => a.startsWith('kms:')),
    );

  it('lets the plugin_configs API only encrypt, and the exports function only decrypt, and no one else', () => {
    // THEN
    const holders = Object.fromEntries(
      functionNames
        .map(
          (name) =>
            [name, kmsStatements(name).flatMap((s) => [s.Action as string | string[]].flat())] as const,
        )
        .filter(([, actions]) => actions.length > 0),
    );
    expect(holders).toEqual({ plugin_configs: ['kms:Encrypt'], exports: ['kms:Decrypt'] });
    expect(
      functionNames.filter((name) => JSON.stringify(kmsStatements(name)).includes('kms:Decrypt')),
    ).toEqual(['exports']);
  });

  it('grants the key only with the encryption context that binds a secret to its project, config and field', () => {
    // THEN
    for (const name of ['plugin_configs', 'exports'] as const) {
      const [statement] = kmsStatements(name);
      expect(statement?.Resource).toEqual({ 'Fn::ImportValue': expect.stringContaining('PluginSecretsKey') });
      expect(statement?.Condition).toEqual({
        'ForAllValues:StringEquals': {
          'kms:EncryptionContextKeys': ['project_id', 'plugin_config_id', 'field'],
        },
        Null: {
          'kms:EncryptionContext:project_id': 'false',
          'kms:EncryptionContext:plugin_config_id': 'false',
          'kms:EncryptionContext:field': 'false',
        },
      });
    }
  });

  it('tells the two functions the key, and only them', () => {
    // THEN
    const functions = template.findResources('AWS::Lambda::Function');
    const told = Object.entries(functions)
      .filter(([, fn]) => fn.Properties.Environment?.Variables?.[envNames.secretsKeyArn] !== undefined)
      .map(([id]) => id)
      .sort();
    expect(told).toEqual([ids.functions.plugin_configs, ids.functions.exports].sort());
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
