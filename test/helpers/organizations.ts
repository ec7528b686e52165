import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { setToolEnvironment } from '../../bin/environment';
import type { BootstrapOptions } from '../../bin/ops/bootstrap';
import type { LocalServer } from './local-server';

const run = promisify(execFile);
const root = resolve(__dirname, '../..');

/** What `flock bootstrap` creates and prints: an organization with one owner, project and key. */
export interface BootstrappedOrganization {
  readonly organizationId: string;
  readonly userId: number;
  readonly projectId: number;
  readonly projectApiKey: string;
  readonly personalApiKey: string;
}

/**
 * Another organization in a running local server, made as an operator would: with the ops CLI
 * (`npm run flock -- bootstrap --table … --endpoint …`) against the server's DynamoDB emulator.
 */
export async function bootstrapOrganization(
  server: LocalServer,
  name: string,
  email = `owner@${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}.example`,
): Promise<BootstrappedOrganization> {
  const { stdout } = await run(process.execPath, [
    join(root, 'node_modules/tsx/dist/cli.mjs'),
    join(root, 'bin/flock.ts'),
    'bootstrap',
    '--table',
    server.endpoints.tables.main,
    '--endpoint',
    server.endpoints.dynamodbEndpoint,
    '--organization',
    name,
    '--email',
    email,
  ]);
  return JSON.parse(stdout) as BootstrappedOrganization;
}

/**
 * Another organization in a running local server, created by what the ops CLI's `bootstrap` runs
 * (`bootstrap()` of bin/ops/bootstrap.ts) from the test's own process: no CLI to start (a node
 * process and its modules, about 2 s of CPU). For tests of something else than the CLI. The
 * process's DynamoDB client then points at `server`'s emulator, as the first call leaves it.
 */
export async function newOrganization(
  server: Pick<LocalServer, 'endpoints'>,
  settings: Partial<BootstrapOptions> = {},
): Promise<BootstrappedOrganization> {
  setToolEnvironment({ AWS_ENDPOINT_URL_DYNAMODB: server.endpoints.dynamodbEndpoint });
  const { bootstrap, defaultBootstrap } = await import('../../bin/ops/bootstrap');
  return bootstrap(server.endpoints.tables.main, { ...defaultBootstrap, ...settings });
}
