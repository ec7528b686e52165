import type { EnvName } from '../functions/shared/config';

/**
 * The environment as the tools around the functions touch it: the local server, the ops CLI, the
 * benches and the tests. The functions themselves read theirs through functions/shared/config.ts.
 */

/** Sets function configuration in this process's environment (the local server hosts the functions in it). */
export function setFunctionEnvironment(values: Partial<Record<EnvName, string>>): void {
  Object.assign(process.env, values);
}

/**
 * Variables of the tools around the functions (the AWS SDK's region, endpoints and credentials,
 * Powertools' log level). `overwrite: false` sets only what is unset.
 */
export function setToolEnvironment(values: Readonly<Record<string, string>>, overwrite = true): void {
  for (const [key, value] of Object.entries(values))
    if (overwrite || process.env[key] === undefined) process.env[key] = value;
}

/** A variable of this process's environment, for tools, benches and tests (functions parse theirs with zod). */
export function environmentValue(name: string): string | undefined {
  return process.env[name];
}

/** A copy of this process's environment with `values` over it, for a child process. */
export function environmentWith(
  values: Readonly<Record<string, string>>,
): Record<string, string | undefined> {
  return { ...process.env, ...values };
}

/** Removes variables from this process's environment (a test restoring what it changed). */
export function unsetEnvironment(...names: readonly string[]): void {
  for (const name of names) delete process.env[name];
}
