import type { PluginConfigRecord, PluginConfigSettings } from '../db/plugin-configs';
import type { ConfigSchemaField, PluginConfigValues } from '../domain/plugins/types';
import type { SecretCipher, SecretContext } from './cipher';

/** The keys of a plugin's `secret: true` settings. */
export function secretFields(schema: readonly ConfigSchemaField[]): Set<string> {
  return new Set(
    schema.flatMap((field) => (field.secret && typeof field.key === 'string' ? [field.key] : [])),
  );
}

/**
 * The settings to store from validated `values`: each secret that holds a value sealed bound to its
 * config and field, unless it is the sealed value `previous` already holds for that field (a secret
 * kept on update, which the API never opens). An empty secret stays plain: it holds nothing.
 */
export async function sealSettings(
  cipher: SecretCipher,
  schema: readonly ConfigSchemaField[],
  values: PluginConfigValues,
  previous: PluginConfigSettings['secrets'],
  owner: Omit<SecretContext, 'field'>,
): Promise<PluginConfigSettings> {
  const secret = secretFields(schema);
  const config: Record<string, string> = {};
  const secrets: Record<string, string> = {};
  for (const [field, value] of Object.entries(values)) {
    if (!secret.has(field) || value === '') config[field] = value;
    else if (Object.hasOwn(previous, field) && previous[field] === value) secrets[field] = value;
    else secrets[field] = await cipher.seal(value, { ...owner, field });
  }
  return { config, secrets };
}

/** The settings with each secret opened: what the exports function uploads with. */
export async function openSettings(
  cipher: SecretCipher,
  record: PluginConfigRecord,
): Promise<PluginConfigValues> {
  const opened: Record<string, string> = { ...record.config };
  for (const [field, sealed] of Object.entries(record.secrets))
    opened[field] = await cipher.open(sealed, {
      projectId: record.team_id,
      pluginConfigId: record.id,
      field,
    });
  return opened;
}

/**
 * The settings with each secret in its sealed form: enough to tell which secrets are set, which is all
 * the API (masking them) and the consumer (checking a config is complete; it never uploads) need.
 */
export function sealedSettings(record: PluginConfigSettings): PluginConfigValues {
  return { ...record.config, ...record.secrets };
}
