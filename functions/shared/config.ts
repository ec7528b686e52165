import * as z from 'zod';
import { maxRequestBodyBytes } from './http/body-limits';

/**
 * Environment parsed once at cold start. A missing or malformed variable fails the cold start with a
 * message naming it, instead of a confusing error on the first request.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
      .join('; ');
    throw new Error(`Invalid Flock configuration: ${problems}`);
  }
  return parsed.data;
}

/** Names of the environment variables the functions read; the CDK stack and the local server set them. */
export const envNames = {
  singleTable: 'SINGLE_TABLE_NAME',
  eventsTable: 'EVENTS_TABLE_NAME',
  ingestQueueUrl: 'INGEST_QUEUE_URL',
  maxBodyBytes: 'MAX_BODY_BYTES',
} as const;

const name = z.string().min(1);

export const singleTableEnv = z.object({ [envNames.singleTable]: name });
export const eventsTableEnv = z.object({ [envNames.eventsTable]: name });
export const ingestQueueEnv = z.object({ [envNames.ingestQueueUrl]: z.url() });
export const maxBodyEnv = z.object({
  /** Request bodies above this are refused with 413 (see http/body-limits.ts; tests set a smaller one). */
  [envNames.maxBodyBytes]: z.coerce.number().int().positive().default(maxRequestBodyBytes),
});
