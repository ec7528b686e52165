import { randomBytes } from 'node:crypto';
import type { PluginConfigRecord } from '../../../../functions/shared/db/plugin-configs';
import { s3ExportPlugin } from '../../../../functions/shared/domain/plugins/s3-export';
import { LocalSecretCipher } from '../../../../functions/shared/secrets/local-cipher';
import {
  openSettings,
  sealedSettings,
  sealSettings,
} from '../../../../functions/shared/secrets/plugin-settings';

const cipher = new LocalSecretCipher(randomBytes(32));
const owner = { projectId: 3, pluginConfigId: 41 };
const values = {
  awsAccessKey: 'AKIAEXAMPLE',
  awsSecretAccessKey: 'very-secret',
  awsRegion: 'eu-west-1',
  s3BucketName: 'bucket',
};

const recordOf = (settings: Pick<PluginConfigRecord, 'config' | 'secrets'>): PluginConfigRecord => ({
  id: owner.pluginConfigId,
  team_id: owner.projectId,
  plugin: s3ExportPlugin.id,
  enabled: true,
  order: 1,
  error: null,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  ...settings,
});

describe('plugin config settings with sealed secrets', () => {
  it('seals only the secret fields, and the exports side opens them back', async () => {
    // Act
    const settings = await sealSettings(cipher, s3ExportPlugin.config_schema, values, {}, owner);
    // Assess
    expect(settings.config).toEqual({
      awsAccessKey: 'AKIAEXAMPLE',
      awsRegion: 'eu-west-1',
      s3BucketName: 'bucket',
    });
    expect(Object.keys(settings.secrets)).toEqual(['awsSecretAccessKey']);
    expect(JSON.stringify(settings)).not.toContain('very-secret');
    expect(await openSettings(cipher, recordOf(settings))).toEqual(values);
  });

  it('keeps a secret the update left as it was sealed, without opening it', async () => {
    // Prepare: the API validated an update that kept the secret (its sealed value came back)
    const first = await sealSettings(cipher, s3ExportPlugin.config_schema, values, {}, owner);
    const kept = { ...sealedSettings(first), awsRegion: 'us-east-1' };
    const refusing = {
      seal: cipher.seal.bind(cipher),
      open: () => Promise.reject(new Error('may not open')),
    };
    // Act
    const second = await sealSettings(refusing, s3ExportPlugin.config_schema, kept, first.secrets, owner);
    // Assess
    expect(second.secrets).toEqual(first.secrets);
    expect(await openSettings(cipher, recordOf(second))).toEqual({ ...values, awsRegion: 'us-east-1' });
  });

  it('leaves an empty secret in the clear: it holds nothing', async () => {
    const settings = await sealSettings(
      cipher,
      s3ExportPlugin.config_schema,
      { ...values, awsSecretAccessKey: '' },
      {},
      owner,
    );
    expect(settings).toEqual({ config: { ...values, awsSecretAccessKey: '' }, secrets: {} });
  });

  it('binds each sealed secret to its config: moved to another config it does not open', async () => {
    // Prepare
    const settings = await sealSettings(cipher, s3ExportPlugin.config_schema, values, {}, owner);
    // Act / Assess
    await expect(openSettings(cipher, { ...recordOf(settings), id: 42 })).rejects.toThrow();
    await expect(openSettings(cipher, { ...recordOf(settings), team_id: 4 })).rejects.toThrow();
  });
});
