import * as z from 'zod';
import { pluginLogTypes } from '../db/plugin-logs';
import { boundedPaginatedSchema, dateTime, storableJson } from './common';
import { components } from './registry';

/**
 * Plugins and plugin configs (`posthog/api/plugin.py`, `posthog/api/plugin_log_entry.py`). PostHog's
 * generated OpenAPI types `config`, `plugin_info` and `delivery_rate_24h` as strings (its method
 * fields come out so); PostHog sends an object, an object and a number, and so does Flock.
 */

export const pluginSchema = /* @__PURE__ */ z
  .object({
    id: z.number().int(),
    plugin_type: z.literal('repository'),
    name: z.string(),
    description: z.string(),
    url: z.string(),
    config_schema: z.array(z.record(z.string(), z.unknown())),
    tag: z.string().nullable(),
    is_global: z.boolean(),
    capabilities: z.object({
      jobs: z.array(z.string()),
      methods: z.array(z.string()),
      scheduled_tasks: z.array(z.string()),
    }),
    public_jobs: z.record(z.string(), z.unknown()),
  })
  .register(components, { id: 'Plugin', description: "A plugin of Flock's built-in catalogue." });
export type PluginResponse = z.infer<typeof pluginSchema>;

export const pluginConfigSchema = /* @__PURE__ */ z
  .object({
    id: z.number().int(),
    plugin: z.number().int(),
    enabled: z.boolean(),
    order: z.number().int(),
    config: z.record(z.string(), z.string()).describe('Settings; secret ones masked.'),
    error: z.record(z.string(), z.unknown()).nullable(),
    team_id: z.number().int(),
    plugin_info: pluginSchema.nullable().describe('The plugin; null in lists, as in PostHog.'),
    delivery_rate_24h: z.number().nullable(),
    created_at: dateTime(),
  })
  .register(components, { id: 'PluginConfig' });
export type PluginConfigResponse = z.infer<typeof pluginConfigSchema>;

/** Postgres `integer`, PostHog's column type for `order`. */
const int32 = /* @__PURE__ */ z
  .number({ error: 'A valid integer is required.' })
  .int('A valid integer is required.')
  .min(-2_147_483_648, 'Ensure this value is greater than or equal to -2147483648.')
  .max(2_147_483_647, 'Ensure this value is less than or equal to 2147483647.');

/** The writable fields (plus `config`, which PostHog takes from multipart forms only). */
export const pluginConfigWriteSchema = /* @__PURE__ */ z
  .object({
    plugin: z
      .union([z.number(), z.string()], { error: 'Incorrect type. Expected pk value.' })
      .optional()
      .describe('A plugin id of the catalogue (`GET /api/organizations/@current/plugins/`).'),
    enabled: z.boolean({ error: 'Must be a valid boolean.' }).optional(),
    order: int32.optional(),
    config: z.unknown().optional().describe("Settings by key, checked against the plugin's config_schema."),
    error: storableJson(z.record(z.string(), z.unknown())).nullable().optional(),
  })
  .register(components, { id: 'PluginConfigWrite' });
export type PluginConfigWrite = z.infer<typeof pluginConfigWriteSchema>;

export const rearrangeSchema = /* @__PURE__ */ z
  .object({
    orders: z
      .record(z.string().max(20), int32)
      .optional()
      .describe('New `order` by plugin config id (or plugin id); unknown keys are ignored.'),
  })
  .register(components, { id: 'PluginConfigRearrange' });

export const pluginJobSchema = /* @__PURE__ */ z
  .object({
    job: z.object(
      {
        type: z.string({ error: 'The job type must be specified!' }).max(200),
        payload: storableJson(z.record(z.string(), z.unknown())).optional(),
        operation: z.enum(['start', 'stop']).optional(),
      },
      { error: 'The job must be an object.' },
    ),
  })
  .register(components, { id: 'PluginJob' });

const pluginLogEntrySchema = /* @__PURE__ */ z
  .object({
    id: z.uuid(),
    team_id: z.number().int(),
    plugin_id: z.number().int(),
    plugin_config_id: z.number().int(),
    timestamp: dateTime(),
    source: z.enum(['SYSTEM', 'PLUGIN', 'CONSOLE']),
    type: z.enum(pluginLogTypes),
    message: z.string(),
    instance_id: z.uuid(),
  })
  .register(components, { id: 'PluginLogEntry' });

/** The list envelope, whose `count` is null past what one request reads (docs/plugins.md). */
export const pluginLogPageSchema = /* @__PURE__ */ boundedPaginatedSchema(
  pluginLogEntrySchema,
  'PaginatedPluginLogEntryList',
);
