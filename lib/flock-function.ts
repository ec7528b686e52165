import * as path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import type { ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { envNames } from '../functions/shared/config';
import type { TableDefinition } from '../functions/shared/db/schema';
import { functionBundling } from './bundling';
import type { KeyPrefixes, TableAction, TableGrant } from './table-access';
import { anyKey, grantedActions } from './table-access';

const projectRoot = path.join(__dirname, '..');

/** `functions/<name>/handler.ts`: the entry file of one Lambda function (an HTTP group or the consumer). */
export function handlerEntry(name: string): string {
  return path.join(projectRoot, 'functions', name, 'handler.ts');
}

/** What a function may do with a queue: only sending (consuming is granted by the event source). */
export type QueueAccess = 'send';

export const queueActions: Readonly<Record<QueueAccess, readonly string[]>> = {
  // SendMessageBatch is authorized by sqs:SendMessage.
  send: ['sqs:SendMessage'],
};

/**
 * What a function may do with the plugin secrets key: `seal` (the plugin_configs API, which never
 * needs to read a secret back) or `open` (the exports function, which uploads with them).
 */
export type SecretsKeyAccess = 'seal' | 'open';

export const secretsKeyActions: Readonly<Record<SecretsKeyAccess, readonly string[]>> = {
  seal: ['kms:Encrypt'],
  open: ['kms:Decrypt'],
};

/** The encryption context every sealed secret carries (functions/shared/secrets/cipher.ts). */
export const secretsContextKeys = ['project_id', 'plugin_config_id', 'field'] as const;

/** The part of a queue definition the function needs: the variable that carries the queue URL. */
export interface QueueBinding {
  readonly envVar: string;
}

export interface FlockFunctionProps {
  /** Absolute path of the entry file; see `handlerEntry()`. */
  readonly entry: string;
  /** POWERTOOLS_SERVICE_NAME of the function's logs and metrics. */
  readonly serviceName: string;
  /** @default - none */
  readonly description?: string;
  /** @default 256 */
  readonly memorySize?: number;
  /** @default Duration.seconds(10) */
  readonly timeout?: Duration;
  /** Extra environment variables; tables and queues are added through `bindTable()`/`bindQueue()`. */
  readonly environment?: Readonly<Record<string, string>>;
  /** @default - none: the function shares the account's unreserved concurrency */
  readonly reservedConcurrentExecutions?: number;
  /** Files the code reads at run time, copied into the asset's `folder` beside the bundle. @default - none */
  readonly assetFiles?: AssetFiles;
  /** Packages esbuild leaves out (not installed either: the code must not need them on Lambda). @default - none */
  readonly externalModules?: readonly string[];
}

/** Files (absolute paths) to copy into one folder of a function's asset. */
export interface AssetFiles {
  readonly folder: string;
  readonly files: readonly string[];
}

const quoted = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** esbuild bundles code only: data files reach the asset by a shell step after bundling (offline, local). */
export function copyAfterBundling({ folder, files }: AssetFiles): ICommandHooks {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_inputDir: string, outputDir: string) => {
      const target = `${outputDir}/${folder}`;
      return [`mkdir -p ${quoted(target)}`, ...files.map((file) => `cp ${quoted(file)} ${quoted(target)}/`)];
    },
  };
}

/**
 * A Node.js Lambda function with Flock's house defaults: Node.js 24 on arm64, bundled locally by esbuild
 * (AWS SDK v3 included, minified, source maps on), its own log group with a retention, and a role that
 * holds nothing but the right to write that log group. Everything else comes from `bindTable()` and
 * `bindQueue()`, which set the environment variable and the IAM grant together so they cannot drift.
 */
export class FlockFunction extends NodejsFunction {
  /** What the asset carries beside the bundle (`props.assetFiles`). */
  public readonly assetFiles?: AssetFiles;

  constructor(scope: Construct, id: string, props: FlockFunctionProps) {
    // Created beside the function: a subclass cannot add children before super().
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: RetentionDays.ONE_MONTH,
      // Logs belong to the stateless stack: destroying it removes them, redeploying starts afresh.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Our own role instead of the AWSLambdaBasicExecutionRole managed policy, which may write to any log
    // group in the account: this one writes only to the function's own group.
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the Flock ${props.serviceName} function`,
    });
    logGroup.grantWrite(role);

    super(scope, id, {
      entry: props.entry,
      handler: 'handler',
      description: props.description,
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 256,
      timeout: props.timeout ?? Duration.seconds(10),
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      role,
      logGroup,
      projectRoot,
      depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        [envNames.serviceName]: props.serviceName,
        ...props.environment,
      },
      bundling: {
        ...functionBundling,
        mainFields: [...functionBundling.mainFields],
        // Bundle AWS SDK v3 rather than rely on the runtime's copy (pinned versions, tree-shaken).
        externalModules: [...(props.externalModules ?? [])],
        format: OutputFormat.CJS,
        ...(props.assetFiles ? { commandHooks: copyAfterBundling(props.assetFiles) } : {}),
      },
    });
    this.assetFiles = props.assetFiles;
  }

  /**
   * Tells the function the table's name (the definition's `envVar`) and grants exactly `grant`: each
   * action on the table limited to its own partition key prefixes (`dynamodb:LeadingKeys`; actions
   * with the same prefixes share a statement), and Query on each named index (an `index/*` wildcard
   * never), which the key prefixes do not limit.
   */
  public bindTable(definition: TableDefinition, table: ITable, grant: TableGrant): this {
    this.addEnvironment(definition.envVar, table.tableName);
    const byPrefixes = new Map<string, { actions: TableAction[]; prefixes: KeyPrefixes }>();
    for (const [action, prefixes] of grantedActions(grant)) {
      // A Query on no prefix reads the indexes only: no statement on the table itself.
      if (prefixes !== anyKey && prefixes.length === 0) continue;
      const id = JSON.stringify(prefixes);
      const statement = byPrefixes.get(id) ?? { actions: [], prefixes };
      statement.actions.push(action);
      byPrefixes.set(id, statement);
    }
    for (const { actions, prefixes } of byPrefixes.values())
      this.addToRolePolicy(
        new PolicyStatement({
          actions,
          resources: [table.tableArn],
          ...(prefixes === anyKey
            ? {}
            : {
                conditions: {
                  'ForAllValues:StringLike': {
                    'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`),
                  },
                },
              }),
        }),
      );
    if (grant['dynamodb:Query'] !== undefined && definition.globalSecondaryIndexes.length > 0)
      this.addToRolePolicy(
        new PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: definition.globalSecondaryIndexes.map(
            (index) => `${table.tableArn}/index/${index.indexName}`,
          ),
        }),
      );
    return this;
  }

  /**
   * Tells the function the plugin secrets key's ARN and grants exactly `access` on that key, only with
   * the encryption context that binds a secret to its config: the key serves nothing else.
   */
  public bindSecretsKey(key: IKey, access: SecretsKeyAccess): this {
    this.addEnvironment(envNames.secretsKeyArn, key.keyArn);
    this.addToRolePolicy(
      new PolicyStatement({
        actions: [...secretsKeyActions[access]],
        resources: [key.keyArn],
        conditions: {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...secretsContextKeys] },
          Null: Object.fromEntries(
            secretsContextKeys.map((name) => [`kms:EncryptionContext:${name}`, 'false']),
          ),
        },
      }),
    );
    return this;
  }

  /** Tells the function the queue's URL (the definition's `envVar`) and grants exactly `access`. */
  public bindQueue(definition: QueueBinding, queue: IQueue, access: QueueAccess): this {
    this.addEnvironment(definition.envVar, queue.queueUrl);
    this.addToRolePolicy(
      new PolicyStatement({ actions: [...queueActions[access]], resources: [queue.queueArn] }),
    );
    return this;
  }
}
