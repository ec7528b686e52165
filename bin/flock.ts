import './local/quiet-sdk';
import { Command, Option } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setToolEnvironment } from './environment';
import type { LocalEndpoints } from './local/server';
import type { DlqTarget } from './ops/dlq';
import type { BootstrapOptions } from './ops/bootstrap';
import { defaultBootstrap } from './ops/bootstrap';
import { confirmOnTerminal } from './ops/confirm';
import { describeMessage, describeQueue } from './ops/dlq-format';
import { createLocalPersonalKey } from './ops/local-keys';
import type { StatefulOutputs } from './ops/stack-outputs';
import { outputsFromFile, outputsFromStack, statefulStackName } from './ops/stack-outputs';
import { printableJson } from './ops/terminal-text';

/**
 * The ops CLI: `npm run flock -- <command>`. Works against a deployed stack (credentials from the
 * usual AWS environment) or, with --endpoint, against the local emulators.
 */
interface TargetOptions {
  table?: string;
  outputsFile?: string;
  stack: string;
  region?: string;
  endpoint?: string;
}

async function resolveOutputs(options: TargetOptions): Promise<StatefulOutputs> {
  if (options.outputsFile) return outputsFromFile(options.outputsFile, options.stack);
  if (options.table) return { SingleTableName: options.table };
  return outputsFromStack(options.stack, options.region);
}

/** The SDK reads region and endpoint from the environment; set them before any client exists. */
function configureSdk(options: TargetOptions): void {
  if (options.region) setToolEnvironment({ AWS_REGION: options.region });
  if (options.endpoint) {
    setToolEnvironment({ AWS_ENDPOINT_URL_DYNAMODB: options.endpoint });
    setToolEnvironment(
      { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' },
      false,
    );
  }
}

const program = new Command().name('flock').description('Operate a Flock deployment.');

const withTarget = (command: Command): Command =>
  command
    .option('--table <name>', 'the single table name (else from the stack outputs)')
    .option('--outputs-file <path>', 'outputs written by `cdk deploy --outputs-file`')
    .option('--stack <name>', 'the stateful stack whose outputs name the table', statefulStackName)
    .option('--region <region>', 'AWS region (else from the AWS environment)')
    .option('--endpoint <url>', 'DynamoDB endpoint (e.g. the local emulator from .flock/local.json)');

withTarget(program.command('bootstrap'))
  .description('create the first organization, user, project and personal API key, and print the keys')
  .option('--organization <name>', 'organization name', defaultBootstrap.organizationName)
  .option('--project <name>', 'project name', defaultBootstrap.projectName)
  .option('--email <email>', "the first user's email", defaultBootstrap.email)
  .option('--first-name <name>', "the first user's first name", defaultBootstrap.firstName)
  .action(
    async (
      options: TargetOptions & { organization: string; project: string; email: string; firstName: string },
    ) => {
      configureSdk(options);
      const outputs = await resolveOutputs(options);
      if (!outputs.SingleTableName) throw new Error('No SingleTableName in the stack outputs; pass --table.');
      const { bootstrap } = await import('./ops/bootstrap');
      const settings: BootstrapOptions = {
        organizationName: options.organization,
        projectName: options.project,
        email: options.email,
        firstName: options.firstName,
      };
      const result = await bootstrap(outputs.SingleTableName, settings);
      console.log(
        JSON.stringify(
          {
            organizationId: result.organizationId,
            userId: result.userId,
            projectId: result.projectId,
            projectApiKey: result.projectApiKey,
            personalApiKey: result.personalApiKey,
          },
          null,
          2,
        ),
      );
      console.error('The personal API key is shown only now: Flock stores only its hash.');
    },
  );

interface DlqOptions extends TargetOptions {
  dataDir: string;
  json?: boolean;
  queue: 'ingest' | 'exports' | 'lake';
}

/**
 * The queues and table `dlq` works on: the running `npm start` when its data directory has a
 * local.json (and no stack was named), else the stateful stack's outputs.
 */
async function resolveDlqTarget(options: DlqOptions, command: Command): Promise<DlqTarget> {
  const { cloudWatchOldestAges, deadLetterOldestAges, newSqsClient } = await import('./ops/dlq');
  const localFile = join(resolve(options.dataDir), 'local.json');
  const stackNamed = command.getOptionValueSource('stack') === 'cli' || options.outputsFile !== undefined;
  let queues: Record<QueueName, string | undefined>;
  let table: string | undefined;
  let sqsEndpoint: string | undefined;
  if (!stackNamed && existsSync(localFile)) {
    const local = JSON.parse(readFileSync(localFile, 'utf8')) as LocalEndpoints;
    configureSdk({ ...options, endpoint: local.dynamodbEndpoint });
    queues = {
      ingest: local.queueUrl,
      dlq: local.deadLetterQueueUrl,
      exports: local.exportsQueueUrl,
      'exports-dlq': local.exportsDeadLetterQueueUrl,
      lake: local.lakeQueueUrl,
      'lake-dlq': local.lakeDeadLetterQueueUrl,
    };
    table = local.tables.main;
    sqsEndpoint = local.sqsEndpoint;
  } else {
    configureSdk(options);
    const outputs = await resolveOutputs(options);
    queues = {
      ingest: outputs.IngestQueueUrl,
      dlq: outputs.DeadLetterQueueUrl,
      exports: outputs.ExportsQueueUrl,
      'exports-dlq': outputs.ExportsDeadLetterQueueUrl,
      lake: outputs.LakeQueueUrl,
      'lake-dlq': outputs.LakeDeadLetterQueueUrl,
    };
    table = options.table ?? outputs.SingleTableName;
  }
  const [sourceName, dlqName] = deadLetterPairs[options.queue];
  const source = queues[sourceName];
  const dlq = queues[dlqName];
  if (!source || !dlq) throw new Error(`No ${sourceName} queue or its DLQ in the stack outputs.`);
  const { readFailures } = await import('../functions/shared/db/failures');
  const sqs = newSqsClient(sqsEndpoint);
  // The emulator has no CloudWatch: there only the dead-letter queues are peeked for their oldest age.
  const oldestAges = sqsEndpoint
    ? deadLetterOldestAges(sqs, ['dlq', 'exports-dlq', 'lake-dlq'] satisfies QueueName[])
    : cloudWatchOldestAges(new (await import('@aws-sdk/client-cloudwatch')).CloudWatchClient({}));
  return {
    sqs,
    oldestAges,
    queues: { source, dlq },
    allQueues: Object.fromEntries(
      Object.entries(queues).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    readFailures: table ? (messageId) => readFailures(table, messageId) : () => Promise.resolve([]),
  };
}

/** Output for a terminal: JSON with `--json`, else the text; neither can carry a control character. */
const print = (options: { readonly json?: boolean }, value: unknown, text: () => string): void => {
  console.log(options.json ? printableJson(value) : text());
};

/** The stacks' queues, as `dlq stats` names them. */
type QueueName = 'ingest' | 'dlq' | 'exports' | 'exports-dlq' | 'lake' | 'lake-dlq';

/** Each `--queue`'s pair: the queue redriven to, and its dead-letter queue. */
const deadLetterPairs = {
  ingest: ['ingest', 'dlq'],
  exports: ['exports', 'exports-dlq'],
  lake: ['lake', 'lake-dlq'],
} as const satisfies Record<DlqOptions['queue'], readonly [QueueName, QueueName]>;

const dlq = program
  .command('dlq')
  .description(
    "inspect, redrive or purge a dead-letter queue (the ingest queue's unless --queue exports or lake)",
  );
const withDlqTarget = (command: Command): Command =>
  withTarget(command)
    .option('--data-dir <dir>', "the local server's data directory (its local.json)", '.flock')
    .addOption(
      new Option('--queue <queue>', 'whose dead-letter queue: the ingest, exports or lake queue')
        .choices(['ingest', 'exports', 'lake'])
        .default('ingest'),
    )
    .option('--json', 'machine-readable output');

withDlqTarget(dlq.command('stats'))
  .description('depth and oldest message age of every queue: ingest, exports, lake and their DLQs')
  .action(async (options: DlqOptions, command: Command) => {
    const { stats } = await import('./ops/dlq');
    const result = await stats(await resolveDlqTarget(options, command));
    print(options, result, () => result.map(describeQueue).join('\n'));
  });

withDlqTarget(dlq.command('list'))
  .description('the dead-lettered messages, decoded, with why they failed (does not consume them)')
  .option('--limit <n>', 'at most this many messages', (value) => Number.parseInt(value, 10), 50)
  .action(async (options: DlqOptions & { limit: number }, command: Command) => {
    const { list } = await import('./ops/dlq');
    const result = await list(await resolveDlqTarget(options, command), options.limit);
    print(options, result, () =>
      result.length === 0 ? 'The DLQ is empty.' : result.map(describeMessage).join('\n'),
    );
  });

withDlqTarget(dlq.command('show <id>'))
  .description('one dead-lettered message by its SQS message id, with every failed attempt')
  .action(async (id: string, options: DlqOptions, command: Command) => {
    const { show } = await import('./ops/dlq');
    const result = await show(await resolveDlqTarget(options, command), id);
    if (!result) throw new Error(`No message ${id} in the DLQ.`);
    print(options, result, () => describeMessage(result));
  });

withDlqTarget(dlq.command('redrive'))
  .description('move the messages back to their queue (fix the cause first)')
  .option('--max <n>', 'move at most this many (moved one by one, not by an SQS move task)', (value) =>
    Number.parseInt(value, 10),
  )
  .action(async (options: DlqOptions & { max?: number }, command: Command) => {
    const { redrive } = await import('./ops/dlq');
    const target = await resolveDlqTarget(options, command);
    const { SingleBar, Presets } = await import('cli-progress');
    const bar = options.json
      ? undefined
      : new SingleBar({ format: 'redrive [{bar}] {value}/{total}' }, Presets.shades_classic);
    let started = false;
    const result = await redrive(target, {
      max: options.max,
      onProgress: (moved, total) => {
        if (!bar) return;
        if (!started) bar.start(total, moved);
        started = true;
        bar.setTotal(total);
        bar.update(moved);
      },
    });
    bar?.stop();
    print(
      options,
      result,
      () => `${result.status}: ${result.moved} moved (${result.method}), ${result.failed} failed`,
    );
  });

withDlqTarget(dlq.command('purge'))
  .description(
    'delete every message in the DLQ for good, once confirmed (names the queue and its depth first)',
  )
  .option('--yes', 'confirm without asking')
  .action(async (options: DlqOptions & { yes?: boolean }, command: Command) => {
    const { purge } = await import('./ops/dlq');
    const target = await resolveDlqTarget(options, command);
    const purged = await purge(target, (question) => confirmOnTerminal(question, options.yes));
    print(options, { purged }, () => (purged ? 'The DLQ is purged.' : 'Nothing was purged.'));
  });

withTarget(program.command('migrate-plugin-configs'))
  .description(
    "upgrade plugin configs written before secrets were sealed: move them to their own partition, sealing their secret settings with the stack's KMS key (replayable; `npm start` does it itself)",
  )
  .option('--key-arn <arn>', 'the plugin secrets key (else PluginSecretsKeyArn from the stack outputs)')
  .action(async (options: TargetOptions & { keyArn?: string }) => {
    configureSdk(options);
    const outputs = await resolveOutputs(options);
    const keyArn = options.keyArn ?? outputs.PluginSecretsKeyArn;
    if (!outputs.SingleTableName) throw new Error('No SingleTableName in the stack outputs; pass --table.');
    if (!keyArn) throw new Error('No PluginSecretsKeyArn in the stack outputs; pass --key-arn.');
    const { migratePluginConfigs } = await import('./ops/migrate-plugin-configs');
    const { KmsSecretCipher } = await import('../functions/shared/secrets/kms-cipher');
    const result = await migratePluginConfigs(outputs.SingleTableName, new KmsSecretCipher(keyArn));
    console.log(
      `${result.configs} plugin config(s) and ${result.claims} claim(s) moved, secret settings sealed.`,
    );
  });

program
  .command('keys')
  .description('personal API keys')
  .command('create')
  .description(
    "mint a new personal API key for a local data directory's owner and write it to its credentials.json (the way back when they were lost)",
  )
  .option(
    '--local',
    'the data directory of `npm start` (the only target: on AWS, keys are made through the API)',
  )
  .option('--data-dir <dir>', 'the data directory `npm start` uses', '.flock')
  .option('--json', 'print the new credentials as JSON')
  .action(async (options: { local?: boolean; dataDir: string; json?: boolean }) => {
    if (!options.local)
      throw new Error(
        'Only --local is supported: on a deployed stack, create keys with POST /api/personal_api_keys/.',
      );
    const credentials = await createLocalPersonalKey(resolve(options.dataDir));
    print(options, credentials, () =>
      [
        `New personal API key for project ${credentials.projectId}: ${credentials.personalApiKey}`,
        `Written to ${join(resolve(options.dataDir), 'credentials.json')}; \`npm start\` now reuses the existing data.`,
      ].join('\n'),
    );
  });

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
