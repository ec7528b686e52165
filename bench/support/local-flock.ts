import { SQSClient } from '@aws-sdk/client-sqs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LocalFlock, LocalOptions } from '../../bin/local/server';
import { startLocalFlock } from '../../bin/local/server';

export interface BenchFlock {
  readonly flock: LocalFlock;
  /** A client of the local SQS emulator, to watch the queues. */
  readonly sqs: SQSClient;
  /** Stops Flock and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * Flock as `npm start -- --memory` runs it, on a free port in a throwaway directory, for one bench.
 * The per-caller flood limits are off unless a bench sets them: a bench is one caller measuring the
 * functions behind the edge, and the limits would refuse its load before it reached them.
 */
export async function startBenchFlock(
  options: Partial<Omit<LocalOptions, 'dataDir' | 'memory' | 'port'>> = {},
): Promise<BenchFlock> {
  const dataDir = mkdtempSync(join(tmpdir(), 'flock-bench-'));
  const flock = await startLocalFlock({
    dataDir,
    memory: true,
    port: 0,
    logLevel: 'ERROR',
    callerLimits: { perKey: 0, perIpPrivate: 0, perIpPublic: 0 },
    ...options,
  });
  const sqs = new SQSClient({
    endpoint: flock.endpoints.sqsEndpoint,
    region: 'us-east-1',
    useQueueUrlAsEndpoint: false,
  });
  return {
    flock,
    sqs,
    stop: async () => {
      sqs.destroy();
      await flock.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
