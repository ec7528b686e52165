import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { boundedCache } from '../shared/cache';
import { localMode } from '../shared/config';
import type { S3ExportObject, S3ExportState } from '../shared/domain/plugins/s3-export';
import { EndpointRefusedError, guardedAgents } from './guarded-agent';

/**
 * Puts an S3 Export object with the config's own credentials, region, endpoint and path style (the
 * function's role holds no S3 permission: the destination is the user's bucket). An upload is tried
 * `uploadAttempts` times with exponential backoff before the batch fails (then SQS redelivers it,
 * PostHog's RetryError), so a brief outage costs seconds, not a redelivery. Every connection goes
 * through the guarded agents (guarded-agent.ts): a destination that is or resolves to a private,
 * loopback, link-local or reserved address is refused before any socket opens. The caller's signal
 * ends the upload, retries and waits included, when its time is spent (budget.ts).
 */

export const uploadAttempts = 3;
const firstRetryDelayMs = 500;
const connectionTimeoutMs = 3_000;
/** Silence on an open connection (no byte either way) that fails the attempt. */
const silenceTimeoutMs = 10_000;

/** One client per destination and container (each keeps its own connections). */
const clients = boundedCache<string, S3Client>({ max: 50 });

function clientFor(state: S3ExportState): S3Client {
  // The secret is part of what identifies a client, but never kept as a key in the clear.
  const id = createHash('sha256')
    .update(
      JSON.stringify([
        state.region,
        state.endpoint,
        state.forcePathStyle,
        state.accessKeyId,
        state.secretAccessKey,
      ]),
    )
    .digest('hex');
  let client = clients.get(id);
  if (!client) {
    client = new S3Client({
      region: state.region || 'us-east-1',
      ...(state.endpoint ? { endpoint: state.endpoint } : {}),
      forcePathStyle: state.forcePathStyle,
      credentials: { accessKeyId: state.accessKeyId, secretAccessKey: state.secretAccessKey },
      // The retries are ours (above), counted and backed off the same way for every error.
      maxAttempts: 1,
      requestHandler: {
        ...guardedAgents(localMode()),
        // A destination that does not connect, or goes silent, fails the attempt; the caller's budget
        // bounds the whole upload (a destination trickling a byte at a time stays within these).
        connectionTimeout: connectionTimeoutMs,
        socketTimeout: silenceTimeoutMs,
      },
      // S3-compatible stores (MinIO, the local emulator) do not all take the SDK's default checksums.
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    clients.set(id, client);
  }
  return client;
}

/**
 * Puts the object; throws the last error once every attempt failed, or at once when the destination
 * is refused or `signal` aborts.
 */
export async function uploadObject(
  state: S3ExportState,
  object: S3ExportObject,
  signal?: AbortSignal,
): Promise<void> {
  const client = clientFor(state);
  for (let attempt = 1; ; attempt++) {
    try {
      signal?.throwIfAborted();
      await client.send(
        new PutObjectCommand({
          Bucket: object.bucket,
          Key: object.key,
          Body: object.body,
          ...(object.serverSideEncryption ? { ServerSideEncryption: object.serverSideEncryption } : {}),
          ...(object.sseKmsKeyId ? { SSEKMSKeyId: object.sseKmsKeyId } : {}),
        }),
        { abortSignal: signal },
      );
      return;
    } catch (error) {
      // Aborted: the caller's reason (its time is spent), not the SDK's generic abort.
      if (signal?.aborted) throw signal.reason;
      if (attempt >= uploadAttempts || error instanceof EndpointRefusedError) throw error;
      await sleep(firstRetryDelayMs * 2 ** (attempt - 1), undefined, { signal });
    }
  }
}
