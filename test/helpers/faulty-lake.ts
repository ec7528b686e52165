import { join } from 'node:path';
import { lakeFaultsVariable } from '../fixtures/lake-faults';
import type { StartOptions } from './local-server';

/**
 * A server that writes the lake every second, with every fault of test/fixtures/lake-faults.ts
 * striking once per container: hand-offs that fail and are redelivered, hand-offs sent twice, a lake
 * upload that fails after its claims, a lake writer that stops between upload and commit.
 */
export const faultyLakeServer: StartOptions = {
  lakeIntervalSeconds: 1,
  functionPreload: [join(__dirname, '../fixtures/lake-faults.ts')],
  env: { [lakeFaultsVariable]: 'handoff-fail,handoff-lost,upload-crash,commit-crash' },
};
