import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A reason `npm start` (or a local ops command) cannot go on that the user can act on: printed as
 * its message alone, with a non-zero exit, never as a stack trace.
 */
export class LocalStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalStartError';
  }
}

/** The command that mints a new personal key for the data directory's user. */
export function keysCreateCommand(dataDir: string, isDefaultDir: boolean): string {
  return `npm run flock -- keys create --local${isDefaultDir ? '' : ` --data-dir ${dataDir}`}`;
}

const lockFile = (dataDir: string): string => join(dataDir, 'server.lock');

/** Whether process `pid` is alive (one of another user's answers EPERM). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of a live process that holds the data directory, if any (a lock left by a crash is not). */
export function lockHolder(dataDir: string): number | undefined {
  let pid: number;
  try {
    pid = Number(readFileSync(lockFile(dataDir), 'utf8').trim());
  } catch {
    return undefined;
  }
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isRunning(pid) ? pid : undefined;
}

/**
 * Claims the data directory for this process: one server per directory (a second one would find the
 * DynamoDB files locked and fail deep inside dynalite). Returns the release function.
 */
export function lockDataDir(dataDir: string): () => void {
  const holder = lockHolder(dataDir);
  if (holder !== undefined)
    throw new LocalStartError(
      `Flock is already running on ${dataDir} (process ${holder}). Stop it first, or start another with --data-dir <dir> or --memory.`,
    );
  writeFileSync(lockFile(dataDir), `${process.pid}\n`);
  return () => rmSync(lockFile(dataDir), { force: true });
}

/** A listen error as the user should read it. */
export function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new LocalStartError(
      `Port ${port} on ${host} is already in use: stop what uses it, or pick another with npm start -- --port <port>.`,
    );
  if (code === 'EADDRNOTAVAIL' || code === 'EACCES')
    return new LocalStartError(`Cannot listen on ${host}:${port} (${code}): pick another --host or --port.`);
  return error;
}
