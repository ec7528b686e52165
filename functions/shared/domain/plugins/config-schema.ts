import type { ConfigSchemaField, PluginConfigValues } from './types';

/**
 * Plugin config values checked against a plugin's `config_schema`. PostHog's API stores what the UI's
 * form sends (the form applies defaults, `required` and choices); Flock's API is used without that
 * form, so the same rules are applied here, and a config either validates or names its bad fields.
 */

/** What PostHog shows in place of a secret field's value (posthog/api/plugin.py `SECRET_FIELD_VALUE`). */
export const SECRET_FIELD_VALUE = '**************** POSTHOG SECRET FIELD ****************';

export interface ConfigError {
  /** The field, DRF-style nested under `config` (`config__percentage`), or `config` for the whole value. */
  readonly attr: string;
  readonly code: 'invalid_input' | 'required' | 'invalid_choice' | 'invalid_json' | 'unknown_key';
  readonly detail: string;
}

export type ConfigValidation =
  | { readonly ok: true; readonly config: Record<string, string> }
  | { readonly ok: false; readonly errors: readonly ConfigError[] };

type KeyedField = ConfigSchemaField & { readonly key: string };

const keyedFields = (schema: readonly ConfigSchemaField[]): KeyedField[] =>
  schema.filter((field): field is KeyedField => typeof field.key === 'string');

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field's value as the string PostHog's form would have stored, or an error. */
function normalise(field: KeyedField, value: unknown): string | ConfigError {
  const attr = `config__${field.key}`;
  if (field.type === 'attachment') {
    return {
      attr,
      code: 'invalid_input',
      detail: `Upload "${field.key}" as the add_attachment[${field.key}] file.`,
    };
  }
  if (field.type === 'json') {
    // A JSON body may carry the document itself rather than its text; store its text, as the form does.
    if (typeof value !== 'string') return JSON.stringify(value);
    try {
      JSON.parse(value);
      return value;
    } catch {
      return { attr, code: 'invalid_json', detail: `"${field.key}" must be valid JSON.` };
    }
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value !== 'string')
    return { attr, code: 'invalid_input', detail: `"${field.key}" must be a string.` };
  if (field.type === 'choice' && field.choices && !field.choices.includes(value)) {
    return {
      attr,
      code: 'invalid_choice',
      detail: `"${value}" is not a valid choice for "${field.key}": choose one of ${field.choices.map((c) => JSON.stringify(c)).join(', ')}.`,
    };
  }
  return value;
}

/**
 * A config as it will be stored, from the `config` a request sent.
 *
 * - On update (`previous` given), PostHog replaces the whole config but keeps a secret field's old
 *   value when the request sends it as null or leaves it out; `""` clears it. A secret sent back as
 *   the mask PostHog showed for it also keeps the old value, so a client can send back what it read.
 * - A field left out (or null) takes the schema's default, as PostHog's form pre-fills it.
 * - A required field must end up non-empty.
 */
export function validatePluginConfig(
  schema: readonly ConfigSchemaField[],
  input: unknown,
  previous?: PluginConfigValues,
): ConfigValidation {
  if (!isRecord(input)) {
    return {
      ok: false,
      errors: [{ attr: 'config', code: 'invalid_input', detail: 'config must be a JSON object.' }],
    };
  }
  const fields = keyedFields(schema);
  const known = new Set(fields.map((field) => field.key));
  const errors: ConfigError[] = Object.keys(input)
    .filter((key) => !known.has(key))
    .map((key) => ({
      attr: `config__${key}`,
      code: 'unknown_key',
      detail: `"${key}" is not a setting of this plugin.`,
    }));
  const config: Record<string, string> = {};
  for (const field of fields) {
    // Own keys only: a setting a request leaves out must not read what every object inherits.
    const sent = Object.hasOwn(input, field.key) ? input[field.key] : undefined;
    const keepsSecret =
      field.secret && previous && (sent === undefined || sent === null || sent === SECRET_FIELD_VALUE);
    const value = keepsSecret
      ? Object.hasOwn(previous, field.key)
        ? previous[field.key]
        : undefined
      : sent === undefined || sent === null
        ? field.default
        : sent;
    if (value === undefined) {
      if (field.required) errors.push(requiredError(field));
      continue;
    }
    const normalised = normalise(field, value);
    if (typeof normalised !== 'string') errors.push(normalised);
    else if (field.required && normalised === '') errors.push(requiredError(field));
    else config[field.key] = normalised;
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, config };
}

function requiredError(field: KeyedField): ConfigError {
  return {
    attr: `config__${field.key}`,
    code: 'required',
    detail: `"${field.name ?? field.key}" is required.`,
  };
}

/** A stored config as the API shows it: secret fields that hold a value replaced by the mask. */
export function maskSecrets(
  config: PluginConfigValues,
  schema: readonly ConfigSchemaField[],
): Record<string, string> {
  const masked = { ...config };
  for (const field of keyedFields(schema)) {
    // PostHog masks only values that are set: an empty secret shows as empty, telling the user to fill it.
    if (field.secret && masked[field.key]) masked[field.key] = SECRET_FIELD_VALUE;
  }
  return masked;
}
