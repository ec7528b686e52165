import { ValidationError, validationErrorFromZod } from '../shared/http/errors';
import { requestBody } from '../shared/http/json-body';
import { booleanText, isMultipart, jsonField, multipartForm } from '../shared/http/multipart';
import type { HttpEvent } from '../shared/http/types';
import { pluginById } from '../shared/domain/plugins/catalogue';
import { validatePluginConfig } from '../shared/domain/plugins/config-schema';
import { maxSecretBytes } from '../shared/secrets/cipher';
import { secretFields } from '../shared/secrets/plugin-settings';
import { setupPluginConfig } from '../shared/domain/plugins/setup';
import type { BuiltInPlugin, PluginConfigValues } from '../shared/domain/plugins/types';
import type { PluginConfigWrite } from '../shared/schemas/plugin';
import { pluginConfigWriteSchema } from '../shared/schemas/plugin';

/**
 * A plugin config write as JSON, or as the multipart form PostHog's UI sends (every field text,
 * `config` a JSON text field). PostHog reads `config` from forms only; Flock reads it from JSON too.
 */
export async function pluginConfigWriteOf(event: HttpEvent): Promise<PluginConfigWrite> {
  const raw = isMultipart(event) ? await formFields(event) : requestBody(event);
  const parsed = pluginConfigWriteSchema.safeParse(raw);
  if (!parsed.success) throw validationErrorFromZod(parsed.error);
  return parsed.data;
}

async function formFields(event: HttpEvent): Promise<Record<string, unknown>> {
  const { fields, files } = await multipartForm(event);
  const [file] = files.keys();
  if (file !== undefined) {
    // PostHog's `add_attachment[<key>]`: no built-in plugin has an attachment setting.
    throw new ValidationError(
      'invalid_input',
      'No plugin of the catalogue takes a file.',
      file.slice(0, 100),
    );
  }
  const raw: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'config' || name === 'error') raw[name] = jsonField(name, value);
    else if (name === 'enabled') raw[name] = booleanText(value);
    else if (name === 'order') raw[name] = /^-?\d{1,12}$/.test(value.trim()) ? Number(value) : value;
    else raw[name] = value;
  }
  return raw;
}

/** DRF's PrimaryKeyRelatedField on `plugin`: an id of the catalogue (as a number or digits). */
export function pluginOfField(value: number | string): BuiltInPlugin {
  const id = typeof value === 'number' ? value : /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (Number.isNaN(id)) {
    throw new ValidationError('incorrect_type', 'Incorrect type. Expected pk value, received str.', 'plugin');
  }
  const plugin = Number.isInteger(id) ? pluginById(id) : undefined;
  if (!plugin) {
    throw new ValidationError(
      'does_not_exist',
      `Invalid pk "${String(value).slice(0, 20)}" - object does not exist.`,
      'plugin',
    );
  }
  return plugin;
}

const maxConfigBytes = 64 * 1024;

/**
 * The settings to store: `sent` checked against the plugin's schema (400 naming the first bad one),
 * then by the plugin's setup (400 with its message), then by what the plugin refuses to be written.
 */
export function configValues(
  plugin: BuiltInPlugin,
  sent: unknown,
  previous?: PluginConfigValues,
): Record<string, string> {
  const result = validatePluginConfig(plugin.config_schema, sent, previous);
  if (result.ok) {
    // A config lives in one item with the config's other fields (DynamoDB: 400 KB at most).
    if (Buffer.byteLength(JSON.stringify(result.config)) > maxConfigBytes) {
      throw new ValidationError(
        'invalid_input',
        `config must be at most ${maxConfigBytes / 1024} KB.`,
        'config',
      );
    }
    // Secrets are sealed one by one with KMS, which encrypts at most 4 KB each.
    for (const field of secretFields(plugin.config_schema)) {
      if (Buffer.byteLength(result.config[field] ?? '') > maxSecretBytes)
        throw new ValidationError(
          'invalid_input',
          `A secret setting must be at most ${maxSecretBytes / 1024} KB.`,
          `config__${field}`,
        );
    }
    // What the plugin's own setup refuses (a percentage that is no number, say) would only fail in
    // ingestion, where the config's error and logs would say so: say it now.
    const setup = setupPluginConfig(plugin, result.config, new Date());
    if (!setup.ok) {
      const attr = setup.setting ? `config__${setup.setting}` : 'config';
      throw new ValidationError('invalid_input', setup.error.message.slice(0, 500), attr);
    }
    const refusal = plugin.refuseConfig?.(result.config);
    if (refusal) throw new ValidationError('invalid_input', refusal.detail, `config__${refusal.key}`);
    return result.config;
  }
  const [first] = result.errors;
  throw new ValidationError(
    first?.code ?? 'invalid_input',
    first?.detail ?? 'Invalid config.',
    first?.attr ?? 'config',
  );
}
