import { v7 as uuidv7 } from 'uuid';
import type { FeatureFlagRecord } from '../shared/db/feature-flags';
import type { FlagEvaluationResult, FlagReason, JsonValue } from '../shared/domain/flags';
import type { RequestEvaluation } from './evaluation';

/**
 * The bodies of `/decide` and `/flags` by version (`posthog/api/decide.py`): Django's shapes for decide v1–v3,
 * the Rust flags service's for decide v4+, `/flags?v=2` ("detailed") and `/flags` v1 ("FlagsV1").
 */

/**
 * The config part of every decide response (`posthog/api/decide.py` 2022 plus what posthog-js 1.200, the
 * last decide caller, reads): no toolbar, no session recording, autocapture on, every compression.
 */
export function decideConfig() {
  return {
    config: { enable_collect_everything: true },
    editorParams: {},
    toolbarParams: {},
    isAuthenticated: false,
    supportedCompression: ['gzip', 'gzip-js', 'lz64'],
    sessionRecording: false,
    autocapture_opt_out: false,
    siteApps: [],
  };
}

/** A flag's value as v2/v3 spell it: its variant, else whether it is enabled. */
const valueOf = (result: FlagEvaluationResult): string | boolean => result.variant ?? result.enabled;

/** An object keyed by flag key; fromEntries keeps a `__proto__` key an ordinary entry. */
const byKey = <T>(entries: readonly (readonly [string, T])[]): Record<string, T> =>
  Object.fromEntries(entries);

function enabledResults(evaluation: RequestEvaluation): FlagEvaluationResult[] {
  return Object.values(evaluation.results).filter((result) => result.enabled);
}

/** v1: the keys of enabled flags. */
export function featureFlagsV1(evaluation: RequestEvaluation): string[] {
  return enabledResults(evaluation).map((result) => result.key);
}

/** v2: enabled flags only, `true` or the variant. */
export function featureFlagsV2(evaluation: RequestEvaluation): Record<string, string | boolean> {
  return byKey(enabledResults(evaluation).map((result) => [result.key, valueOf(result)] as const));
}

/** v3 / FlagsV1: every flag, `false` included. */
export function featureFlagsAll(evaluation: RequestEvaluation): Record<string, string | boolean> {
  return byKey(Object.values(evaluation.results).map((result) => [result.key, valueOf(result)] as const));
}

/** Payloads as stored, of enabled flags that have one (the variant's, or `"true"`'s). */
export function featureFlagPayloads(evaluation: RequestEvaluation): Record<string, JsonValue> {
  return byKey(
    enabledResults(evaluation)
      .filter((result) => result.payload !== null)
      .map((result) => [result.key, result.payload] as const),
  );
}

/** The SDKs JSON-parse `metadata.payload`: a stored string is already JSON text, anything else becomes it. */
const payloadText = (payload: JsonValue | null): string | null =>
  payload === null ? null : typeof payload === 'string' ? payload : JSON.stringify(payload);

export interface FlagDetails {
  key: string;
  enabled: boolean;
  variant: string | null;
  reason: FlagReason;
  metadata: { id: number; version: number; description: string | null; payload: string | null };
  failed?: true;
}

function details(result: FlagEvaluationResult, flag: FeatureFlagRecord | undefined): FlagDetails {
  return {
    key: result.key,
    enabled: result.enabled,
    variant: result.variant,
    reason: result.reason,
    metadata: {
      id: flag?.id ?? 0,
      version: flag?.version ?? 0,
      description: flag?.name ?? null,
      payload: payloadText(result.payload),
    },
    ...(result.failed ? { failed: true as const } : {}),
  };
}

/** v4 / `/flags?v=2`: per-flag details. */
export function flagDetails(evaluation: RequestEvaluation): Record<string, FlagDetails> {
  const flagOf = new Map(evaluation.flags.map((flag) => [flag.key, flag]));
  return byKey(
    Object.values(evaluation.results).map(
      (result) => [result.key, details(result, flagOf.get(result.key))] as const,
    ),
  );
}

/** What every Rust-era response carries: a request id and the evaluation time in ms. */
const stamp = (now: number) => ({ requestId: uuidv7(), evaluatedAt: now });

/** The body of `/decide/?v=<version>`. */
export function decideResponse(version: number, evaluation: RequestEvaluation, now = Date.now()) {
  const config = decideConfig();
  if (version >= 4) {
    return {
      ...config,
      flags: flagDetails(evaluation),
      errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags,
      ...stamp(now),
    };
  }
  if (version === 3) {
    return {
      ...config,
      featureFlags: featureFlagsAll(evaluation),
      errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags,
      featureFlagPayloads: featureFlagPayloads(evaluation),
    };
  }
  if (version === 2) return { ...config, featureFlags: featureFlagsV2(evaluation) };
  return { ...config, featureFlags: featureFlagsV1(evaluation) };
}

/** The body of `/flags/?v=<version>`: detailed from v2 on, else FlagsV1. */
export function flagsResponse(version: number, evaluation: RequestEvaluation, now = Date.now()) {
  if (version >= 2) {
    return {
      flags: flagDetails(evaluation),
      errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags,
      ...stamp(now),
    };
  }
  return {
    featureFlags: featureFlagsAll(evaluation),
    featureFlagPayloads: featureFlagPayloads(evaluation),
    errorsWhileComputingFlags: evaluation.errorsWhileComputingFlags,
    ...stamp(now),
  };
}

/** Nothing evaluated (`disable_flags`): the same shapes, empty. */
export const noEvaluation: RequestEvaluation = { flags: [], results: {}, errorsWhileComputingFlags: false };
