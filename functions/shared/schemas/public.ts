import * as z from 'zod';
import { components } from './registry';

/**
 * The public endpoints' bodies, for the OpenAPI document. Capture and decide read their bodies
 * leniently, as PostHog does (every SDK encoding, fields of the wrong type ignored), so these
 * describe the JSON form the SDKs send; unknown fields are allowed.
 */

export const captureEventSchema = /* @__PURE__ */ z
  .looseObject({
    event: z.string().describe('The event name; an event without one is dropped.'),
    distinct_id: z.union([z.string(), z.number()]).optional(),
    properties: z.record(z.string(), z.unknown()).optional().describe('`distinct_id` may be here too.'),
    timestamp: z.string().optional(),
    uuid: z.string().optional().describe('Makes retries collapse into one stored event.'),
  })
  .register(components, { id: 'CaptureEvent' });

export const captureBodySchema = /* @__PURE__ */ z
  .looseObject({
    api_key: z.string().optional().describe('The project API key (also `token`, or `properties.token`).'),
    batch: z.array(captureEventSchema).optional().describe('Several events (`/batch/`).'),
    sent_at: z.string().optional(),
    event: z.string().optional(),
    distinct_id: z.union([z.string(), z.number()]).optional(),
    properties: z.record(z.string(), z.unknown()).optional(),
  })
  .register(components, { id: 'CaptureBody' });

/** Capture's only success answer, and the preflights'. */
export const acceptedSchema = /* @__PURE__ */ z
  .object({ status: z.literal(1) })
  .register(components, { id: 'Accepted' });

export const flagsRequestSchema = /* @__PURE__ */ z
  .looseObject({
    token: z.string().optional().describe('The project API key (also `api_key`).'),
    distinct_id: z.union([z.string(), z.number()]).optional(),
    $anon_distinct_id: z.string().optional(),
    groups: z.record(z.string(), z.unknown()).optional(),
    person_properties: z.record(z.string(), z.unknown()).optional(),
    group_properties: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
    flag_keys_to_evaluate: z.array(z.string()).optional(),
    disable_flags: z.boolean().optional(),
  })
  .register(components, { id: 'FlagsRequest' });

export const decideResponseSchema = /* @__PURE__ */ z
  .looseObject({
    featureFlags: z.union([z.array(z.string()), z.record(z.string(), z.union([z.boolean(), z.string()]))]),
    errorsWhileComputingFlags: z.boolean().optional(),
    featureFlagPayloads: z.record(z.string(), z.unknown()).optional(),
  })
  .describe('The shape depends on `?v=`: v1 a list of enabled keys, v2+ key → value, v4 details.')
  .register(components, { id: 'DecideResponse' });

export const flagsResponseSchema = /* @__PURE__ */ z
  .looseObject({
    flags: z.record(z.string(), z.unknown()).optional(),
    featureFlags: z.record(z.string(), z.union([z.boolean(), z.string()])).optional(),
    errorsWhileComputingFlags: z.boolean(),
  })
  .describe('`?v=2`: `flags` with each flag’s details; v1: `featureFlags` key → value.')
  .register(components, { id: 'FlagsResponse' });

export const remoteConfigSchema = /* @__PURE__ */ z
  .looseObject({ token: z.string(), supportedCompression: z.array(z.string()) })
  .register(components, { id: 'RemoteConfig' });

export const localEvaluationSchema = /* @__PURE__ */ z
  .looseObject({
    flags: z.array(z.record(z.string(), z.unknown())),
    group_type_mapping: z.record(z.string(), z.string()),
    cohorts: z.record(z.string(), z.unknown()),
  })
  .register(components, { id: 'LocalEvaluation' });
