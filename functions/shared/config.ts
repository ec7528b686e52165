import * as z from 'zod';
import { maxRequestBodyBytes } from './http/body-limits';
import { maxTrustedProxies } from './http/forwarded-for';

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

/**
 * Names of the environment variables the functions read: the only place they are spelled. The CDK
 * stack (through the table and queue definitions), the local server and the tests use these.
 */
export const envNames = {
  singleTable: 'SINGLE_TABLE_NAME',
  eventsTable: 'EVENTS_TABLE_NAME',
  ingestQueueUrl: 'INGEST_QUEUE_URL',
  ingestDlqUrl: 'INGEST_DLQ_URL',
  /** The exports queue: the consumer hands stored events of projects with an export plugin to it. */
  exportsQueueUrl: 'EXPORTS_QUEUE_URL',
  exportsDlqUrl: 'EXPORTS_DLQ_URL',
  /** The lake queue: the consumer hands every stored event to it (functions/lake). */
  lakeQueueUrl: 'LAKE_QUEUE_URL',
  lakeDlqUrl: 'LAKE_DLQ_URL',
  /** The bucket the lake function writes its Parquet files to. */
  lakeBucket: 'LAKE_BUCKET_NAME',
  /** Events after which the lake function writes its files without waiting for the queue to empty. */
  lakeFlushEvents: 'FLOCK_LAKE_FLUSH_EVENTS',
  /**
   * How long a lake message stays invisible once received (and after how long a writer's unfinished
   * claims may be taken over); the lake queue's setting unless the local server shortens it.
   */
  lakeVisibilitySeconds: 'FLOCK_LAKE_VISIBILITY_SECONDS',
  /**
   * How old a hand-off must be before the lake writer checks it against the event items (every write
   * that raced it has landed by then): `lakeQueue.settleSeconds` unless the local server shortens it.
   */
  lakeSettleSeconds: 'FLOCK_LAKE_SETTLE_SECONDS',
  /** The local server's embedded S3, where the lake function writes under `npm start`; unset on AWS. */
  lakeS3Endpoint: 'FLOCK_LAKE_S3_ENDPOINT',
  /** Parquet bytes one query may read from the lake (functions/query/settings.ts has the default). */
  queryMaxLakeBytes: 'FLOCK_QUERY_MAX_LAKE_BYTES',
  /** The query API's engine: `duckdb`, `athena` or `auto` (functions/query/engine.ts); `duckdb` if unset. */
  queryEngine: 'FLOCK_QUERY_ENGINE',
  /** The queue of async query runs: the query function sends to it and its event source runs them. */
  queryRunsQueueUrl: 'FLOCK_QUERY_RUNS_QUEUE_URL',
  /** The Athena workgroup queries over the lake run in, and the Glue database of the lake's table. */
  athenaWorkGroup: 'FLOCK_ATHENA_WORKGROUP',
  lakeDatabase: 'FLOCK_LAKE_DATABASE',
  /** Lake compaction: how old a flush file must be to be merged (functions/shared/lake/compaction.ts). */
  lakeCompactSettleSeconds: 'FLOCK_LAKE_COMPACT_SETTLE_SECONDS',
  /** Lake compaction: how long merged files stay after the compaction's commit. */
  lakeCompactGraceSeconds: 'FLOCK_LAKE_COMPACT_GRACE_SECONDS',
  maxBodyBytes: 'MAX_BODY_BYTES',
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  projectMetrics: 'FLOCK_PROJECT_METRICS',
  /** Events a cohort calculation's behavioural filters may read (functions/cohort_calculation). */
  cohortMaxEvents: 'FLOCK_COHORT_MAX_EVENTS',
  /**
   * The consumer's GeoIP database: `s3://bucket/key` of an official MaxMind GeoLite2/GeoIP2 City
   * `.mmdb`; unset, the GeoLite2 City files bundled with the consumer (functions/consumer/geoip).
   */
  geoipDatabase: 'FLOCK_GEOIP_DATABASE',
  /**
   * Reverse proxies in front of capture (CloudFront, the customer's own domain): the client address
   * is taken that many entries left in `X-Forwarded-For` (shared/http/forwarded-for.ts); 0, the
   * default, is the source address API Gateway saw.
   */
  trustedProxies: 'FLOCK_TRUSTED_PROXIES',
  /** `true` when the functions run under the local server (`npm start`), never on AWS. */
  localMode: 'FLOCK_LOCAL_MODE',
  /** The KMS key that seals plugin config secrets (functions/shared/secrets), on AWS. */
  secretsKeyArn: 'FLOCK_SECRETS_KEY_ARN',
  /** The local server's stand-in for it: a key file in the data directory (secrets/local-cipher.ts). */
  localSecretsKeyFile: 'FLOCK_LOCAL_SECRETS_KEY_FILE',
  /**
   * Milliseconds one export config's uploads may take in one invocation of the exports function,
   * below its 45 s default only (functions/exports/live.ts): tests of a hanging destination.
   */
  exportBudgetMs: 'FLOCK_EXPORT_BUDGET_MS',
} as const;

export type EnvName = (typeof envNames)[keyof typeof envNames];

/** A numeric setting (a bench's size, a test's bound): the variable when set and numeric, else `fallback`. */
export function numberSetting(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isFinite(value) ? value : fallback;
}

/** The logger's service name (Powertools' own variable), `flock` when unset. */
export function serviceName(env: NodeJS.ProcessEnv = process.env): string {
  return env[envNames.serviceName] ?? 'flock';
}

/**
 * Whether counts are also emitted per project (a CloudWatch metric per project and count): on unless
 * the stack turns it off with `false`.
 */
export function projectMetricsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[envNames.projectMetrics] !== 'false';
}

/**
 * Whether the function runs under the local server: S3 Export then also reaches loopback addresses
 * (the embedded S3 emulator, a developer's MinIO), over http too. Never set by the stacks.
 */
export function localMode(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[envNames.localMode] === 'true';
}

/*
 * Each variable's schema is declared `@__PURE__` (its chain wrapped in a function where it calls
 * others): a function's bundle leaves out, and its cold start does not build, the schemas of the
 * variables it does not read (functions/shared/schemas/registry.ts says more).
 */
const name = /* @__PURE__ */ z.string().min(1);

export const singleTableEnv = /* @__PURE__ */ (() => z.object({ [envNames.singleTable]: name }))();
export const eventsTableEnv = /* @__PURE__ */ (() => z.object({ [envNames.eventsTable]: name }))();
export const geoipDatabaseEnv = /* @__PURE__ */ (() =>
  z.object({
    [envNames.geoipDatabase]: z
      .string()
      .regex(/^s3:\/\/[^/]+\/.+$/, 'expected s3://bucket/key')
      .optional(),
  }))();
export const secretsKeyEnv = /* @__PURE__ */ (() =>
  z.object({
    [envNames.secretsKeyArn]: z
      .string()
      .regex(/^arn:[\w-]+:kms:/, 'expected a KMS key ARN')
      .optional(),
    [envNames.localSecretsKeyFile]: name.optional(),
  }))();
export const ingestQueueEnv = /* @__PURE__ */ (() => z.object({ [envNames.ingestQueueUrl]: z.url() }))();
export const exportsQueueEnv = /* @__PURE__ */ (() => z.object({ [envNames.exportsQueueUrl]: z.url() }))();
/** The consumer's lake hand-off: unset, no event is handed to the lake. */
const settleSeconds = /* @__PURE__ */ z.coerce.number().int().min(0).max(900).optional();
export const lakeQueueOptionalEnv = /* @__PURE__ */ (() =>
  z.object({
    [envNames.lakeQueueUrl]: z.url().optional(),
    [envNames.lakeSettleSeconds]: settleSeconds,
  }))();
export const lakeEnv = /* @__PURE__ */ (() =>
  z.object({
    [envNames.lakeQueueUrl]: z.url(),
    [envNames.lakeBucket]: name,
    [envNames.lakeFlushEvents]: z.coerce.number().int().positive().optional(),
    [envNames.lakeVisibilitySeconds]: z.coerce.number().int().positive().optional(),
    [envNames.lakeSettleSeconds]: settleSeconds,
    [envNames.lakeS3Endpoint]: z.url().optional(),
  }))();
/** The lake compaction job (functions/lake/compact-handler.ts). */
export const lakeCompactionEnv = /* @__PURE__ */ (() =>
  z.object({
    [envNames.lakeBucket]: name,
    [envNames.lakeS3Endpoint]: z.url().optional(),
    [envNames.lakeCompactSettleSeconds]: z.coerce.number().int().nonnegative().optional(),
    [envNames.lakeCompactGraceSeconds]: z.coerce.number().int().nonnegative().optional(),
  }))();
export const maxBodyEnv = /* @__PURE__ */ (() =>
  z.object({
    /** Request bodies above this are refused with 413 (see http/body-limits.ts; tests set a smaller one). */
    [envNames.maxBodyBytes]: z.coerce.number().int().positive().default(maxRequestBodyBytes),
  }))();

export const trustedProxiesEnv = /* @__PURE__ */ (() =>
  z.object({
    [envNames.trustedProxies]: z.coerce.number().int().min(0).max(maxTrustedProxies).default(0),
  }))();

/** What a route of the private API is given: the single table, where every private resource lives. */
export interface PrivateApiConfig {
  readonly singleTable: string;
}

/** What the events routes are given: also the events table. */
export interface EventsApiConfig extends PrivateApiConfig {
  readonly eventsTable: string;
}

/** The private API's configuration, parsed from the environment (once per handler, at cold start). */
export function privateApiConfig(env: NodeJS.ProcessEnv = process.env): PrivateApiConfig {
  return { singleTable: loadConfig(singleTableEnv, env)[envNames.singleTable] };
}

/** The events routes' configuration, parsed from the environment (once per handler, at cold start). */
export function eventsApiConfig(env: NodeJS.ProcessEnv = process.env): EventsApiConfig {
  const config = loadConfig(singleTableEnv.and(eventsTableEnv), env);
  return { singleTable: config[envNames.singleTable], eventsTable: config[envNames.eventsTable] };
}
