import { PLUGIN_CATALOGUE, pluginById } from '../../../functions/shared/domain/plugins/catalogue';

describe('plugin catalogue', () => {
  it('lists the ten built-in plugins under stable ids 1..10', () => {
    expect(PLUGIN_CATALOGUE.map((plugin) => [plugin.id, plugin.name])).toEqual([
      [1, 'GeoIP'],
      [2, 'Property Filter'],
      [3, 'Downsampling Plugin'],
      [4, 'Taxonomy Plugin'],
      [5, 'Property Flattener Plugin'],
      [6, 'Timestamp Parser'],
      [7, 'User Agent Populator'],
      [8, 'Unduplicates'],
      [9, 'First Time Event Tracker'],
      [10, 'S3 Export Plugin'],
    ]);
  });

  it('finds a plugin by id, and nothing for an unknown id', () => {
    expect(pluginById(3)?.name).toBe('Downsampling Plugin');
    expect(pluginById(0)).toBeUndefined();
    expect(pluginById(11)).toBeUndefined();
  });

  it('gives every processing plugin processEvent and only the export plugin the historical export job', () => {
    for (const plugin of PLUGIN_CATALOGUE) {
      expect(plugin.processEvent !== undefined).toBe(plugin.capabilities.methods.includes('processEvent'));
    }
    expect(
      PLUGIN_CATALOGUE.filter((plugin) => Object.keys(plugin.public_jobs).length > 0).map((p) => p.id),
    ).toEqual([10]);
  });

  it('sets up every plugin from its schema defaults but those whose required fields have none', () => {
    const defaults = (id: number) =>
      Object.fromEntries(
        (pluginById(id)?.config_schema ?? []).flatMap((field) =>
          field.key !== undefined && field.default !== undefined ? [[field.key, field.default]] : [],
        ),
      );
    for (const id of [1, 3, 4, 5, 6, 7]) expect(() => pluginById(id)?.setup(defaults(id))).not.toThrow();
  });
});
