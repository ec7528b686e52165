import { randomBytes } from 'node:crypto';
import { migratePluginConfigs } from '../../../bin/ops/migrate-plugin-configs';
import {
  getPluginConfig,
  listPluginConfigs,
  upsertPluginConfig,
} from '../../../functions/shared/db/plugin-configs';
import { s3ExportPlugin } from '../../../functions/shared/domain/plugins/s3-export';
import { LocalSecretCipher } from '../../../functions/shared/secrets/local-cipher';
import { openSettings } from '../../../functions/shared/secrets/plugin-settings';
import { consumerTables, tablesWithProject } from '../../helpers/consumer-tables';
import type { DynaliteTables } from '../../helpers/dynalite-tables';

const table = consumerTables.singleTable;
const projectId = 4;
const cipher = new LocalSecretCipher(randomBytes(32));
const settings = {
  awsAccessKey: 'AKIAEXAMPLE',
  awsSecretAccessKey: 'the-old-plaintext-secret',
  awsRegion: 'eu-west-1',
  s3BucketName: 'bucket',
};

/** The fields config 7 of the project has in either layout. */
const configFields = {
  id: 7,
  team_id: projectId,
  plugin: s3ExportPlugin.id,
  order: 1,
  error_json: 'null',
  created_at: '2026-01-01T00:00:00.000Z',
};

/** A config and its claim as the code before the upgrade wrote them, in the project's partition. */
async function seedLegacyExportConfig(fake: DynaliteTables): Promise<void> {
  await fake.seed(table, { PK: `PROJECT#${projectId}`, SK: 'PLUGINFOR#10', config_id: 7 });
  await fake.seed(table, {
    PK: `PROJECT#${projectId}`,
    SK: 'PLUGINCONFIG#000000000007',
    ...configFields,
    enabled: true,
    config: settings,
    updated_at: '2026-01-02T00:00:00.000Z',
  });
}

const legacyKeys = (items: Map<string, Record<string, unknown>>): string[] =>
  [...items.keys()].filter((key) => / PLUGIN(CONFIG|FOR)#/.test(key));

describe('the plugin config upgrade (bin/ops/migrate-plugin-configs.ts)', () => {
  let fake: DynaliteTables;

  beforeEach(async () => {
    fake = await tablesWithProject(projectId);
    await seedLegacyExportConfig(fake);
  });

  afterEach(async () => {
    await fake.stop();
  });

  it('moves configs and claims out of the project partition, sealing their secrets on the way', async () => {
    // Act
    const result = await migratePluginConfigs(table, cipher);

    // Assess
    expect(result).toEqual({ configs: 1, claims: 1 });
    const items = await fake.items(table);
    expect(legacyKeys(items)).toEqual([]);
    expect(JSON.stringify([...items.values()])).not.toContain('the-old-plaintext-secret');
    const [config] = await listPluginConfigs(table, projectId);
    expect(config).toMatchObject({
      id: 7,
      plugin: s3ExportPlugin.id,
      enabled: true,
      updated_at: '2026-01-02T00:00:00.000Z',
    });
    expect(Object.keys(config!.secrets)).toEqual(['awsSecretAccessKey']);
    expect(await openSettings(cipher, config!)).toEqual(settings);
    // The claim moved too: creating the plugin's config again updates config 7.
    const { record, created } = await upsertPluginConfig(
      table,
      projectId,
      { plugin: 10, enabled: false, order: 1, error: null },
      () => Promise.resolve({ config: config!.config, secrets: config!.secrets }),
    );
    expect({ id: record.id, created }).toEqual({ id: 7, created: false });
  });

  it('finishes a run that stopped half way, keeps a copy the API wrote since, and does nothing the second time', async () => {
    // Prepare: an earlier run copied the claim only; then the API changed the config (a new copy).
    await fake.seed(table, { PK: `PLUGINCONFIG#${projectId}`, SK: 'PLUGIN#10', config_id: 7 });
    await fake.seed(table, {
      PK: `PLUGINCONFIG#${projectId}`,
      SK: 'CONFIG#000000000007',
      ...configFields,
      enabled: false,
      config: {},
      secrets: {},
      updated_at: '2026-03-01T00:00:00.000Z',
    });

    // Act
    await migratePluginConfigs(table, cipher);
    const before = await fake.items(table);
    const again = await migratePluginConfigs(table, cipher);

    // Assess
    expect(legacyKeys(before)).toEqual([]);
    expect((await getPluginConfig(table, projectId, 7))?.updated_at).toBe('2026-03-01T00:00:00.000Z');
    expect(again).toEqual({ configs: 0, claims: 0 });
    expect(await fake.items(table)).toEqual(before);
  });
});
