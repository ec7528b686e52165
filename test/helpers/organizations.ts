import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
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
