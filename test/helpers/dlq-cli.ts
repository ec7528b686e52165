import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { LocalServer } from './local-server';

const run = promisify(execFile);
const root = resolve(__dirname, '../..');

/**
 * `npm run flock -- dlq <args>` as an operator runs it against `npm start`, finding the server through
 * its data directory's local.json; its standard output.
 */
export async function dlqCli(server: LocalServer, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [
    join(root, 'node_modules/tsx/dist/cli.mjs'),
    join(root, 'bin/flock.ts'),
    'dlq',
    ...args,
    '--data-dir',
    server.dataDir,
  ]);
  return stdout;
}

/** The same with `--json`, parsed. */
export const dlqCliJson = async <T>(server: LocalServer, ...args: string[]): Promise<T> =>
  JSON.parse(await dlqCli(server, ...args, '--json')) as T;
