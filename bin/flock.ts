import './local/quiet-sdk';
import { Command } from 'commander';
import type { BootstrapOptions } from './ops/bootstrap';
import { defaultBootstrap } from './ops/bootstrap';
import type { StatefulOutputs } from './ops/stack-outputs';
import { outputsFromFile, outputsFromStack, statefulStackName } from './ops/stack-outputs';

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
  if (options.region) process.env.AWS_REGION = options.region;
  if (options.endpoint) {
    process.env.AWS_ENDPOINT_URL_DYNAMODB = options.endpoint;
    process.env.AWS_REGION ??= 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
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

program.parseAsync().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
