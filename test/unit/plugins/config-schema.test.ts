import { downsamplingPlugin } from '../../../functions/shared/domain/plugins/downsampling';
import {
  maskSecrets,
  SECRET_FIELD_VALUE,
  validatePluginConfig,
} from '../../../functions/shared/domain/plugins/config-schema';
import { s3ExportPlugin } from '../../../functions/shared/domain/plugins/s3-export';
import type { ConfigSchemaField } from '../../../functions/shared/domain/plugins/types';

const SCHEMA: readonly ConfigSchemaField[] = [
  { markdown: 'Read me' },
  { key: 'name', name: 'Name', type: 'string', required: true },
  { key: 'mode', type: 'choice', choices: ['a', 'b'], default: 'a' },
  { key: 'rules', type: 'json', default: '[]' },
  { key: 'token', type: 'string', secret: true, required: true },
];

describe('plugin config validation', () => {
  it('fills defaults and keeps given values, as strings', () => {
    expect(validatePluginConfig(SCHEMA, { name: 'x', token: 't', mode: 'b' })).toEqual({
      ok: true,
      config: { name: 'x', mode: 'b', rules: '[]', token: 't' },
    });
    expect(validatePluginConfig(downsamplingPlugin.config_schema, { percentage: 25 })).toEqual({
      ok: true,
      config: { percentage: '25', samplingMethod: 'Distinct ID aware sampling' },
    });
  });

  it('names each bad field: required, choice, JSON, unknown key', () => {
    const result = validatePluginConfig(SCHEMA, { mode: 'c', rules: '{nope', extra: 1, token: '' });
    expect(result).toEqual({
      ok: false,
      errors: [
        { attr: 'config__extra', code: 'unknown_key', detail: '"extra" is not a setting of this plugin.' },
        { attr: 'config__name', code: 'required', detail: '"Name" is required.' },
        {
          attr: 'config__mode',
          code: 'invalid_choice',
          detail: '"c" is not a valid choice for "mode": choose one of "a", "b".',
        },
        { attr: 'config__rules', code: 'invalid_json', detail: '"rules" must be valid JSON.' },
        { attr: 'config__token', code: 'required', detail: '"token" is required.' },
      ],
    });
  });

  it('stores a JSON field sent as a document as its text', () => {
    const result = validatePluginConfig(SCHEMA, { name: 'x', token: 't', rules: [{ a: 1 }] });
    expect(result.ok && result.config['rules']).toBe('[{"a":1}]');
  });

  it('refuses a config that is not an object, and a string field given an object', () => {
    expect(validatePluginConfig(SCHEMA, [1])).toMatchObject({ ok: false, errors: [{ attr: 'config' }] });
    expect(validatePluginConfig(SCHEMA, { name: { a: 1 }, token: 't' })).toMatchObject({
      ok: false,
      errors: [{ attr: 'config__name', code: 'invalid_input' }],
    });
  });

  it('on update keeps a secret sent as null, left out or sent back masked, and clears it with ""', () => {
    const previous = { name: 'x', mode: 'a', rules: '[]', token: 'old' };
    for (const token of [null, undefined, SECRET_FIELD_VALUE]) {
      const result = validatePluginConfig(SCHEMA, { name: 'y', token }, previous);
      expect(result).toEqual({ ok: true, config: { name: 'y', mode: 'a', rules: '[]', token: 'old' } });
    }
    expect(validatePluginConfig(SCHEMA, { name: 'y', token: '' }, previous)).toMatchObject({
      ok: false,
      errors: [{ attr: 'config__token', code: 'required' }],
    });
  });

  it('on update replaces non-secret fields, as PostHog does: one left out takes its default again', () => {
    const previous = { name: 'x', mode: 'b', rules: '[]', token: 'old' };
    expect(validatePluginConfig(SCHEMA, { name: 'x' }, previous)).toEqual({
      ok: true,
      config: { name: 'x', mode: 'a', rules: '[]', token: 'old' },
    });
  });
});

describe('secret masking', () => {
  it("replaces set secret values with PostHog's mask and leaves empty ones and other fields", () => {
    const config = { awsAccessKey: 'AKIA', awsSecretAccessKey: 'very secret', s3BucketName: 'b' };
    expect(maskSecrets(config, s3ExportPlugin.config_schema)).toEqual({
      awsAccessKey: 'AKIA',
      awsSecretAccessKey: '**************** POSTHOG SECRET FIELD ****************',
      s3BucketName: 'b',
    });
    expect(maskSecrets({ awsSecretAccessKey: '' }, s3ExportPlugin.config_schema)).toEqual({
      awsSecretAccessKey: '',
    });
  });
});
