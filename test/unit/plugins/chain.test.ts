import {
  runPluginChain,
  type PluginConfigToRun,
  type PluginMetaFactory,
} from '../../../functions/shared/domain/plugins/chain';
import { pluginErrorRecord } from '../../../functions/shared/domain/plugins/plugin-error';
import { collectingConsole } from '../../../functions/shared/domain/plugins/console';
import { propertyFilterPlugin } from '../../../functions/shared/domain/plugins/property-filter';
import { s3ExportPlugin } from '../../../functions/shared/domain/plugins/s3-export';
import type { BuiltInPlugin, PluginEvent } from '../../../functions/shared/domain/plugins/types';
import { pluginEvent, testPlugin } from './fixtures';

const plugin = testPlugin;

/** Appends its name to `properties.trail`, mutating the event it was given. */
const marker = (name: string) =>
  plugin(name, (event) => {
    const properties = (event.properties ??= {});
    properties['trail'] = [...((properties['trail'] as string[] | undefined) ?? []), name];
    return event;
  });

const config = (id: number, order: number, p: BuiltInPlugin, enabled = true): PluginConfigToRun => ({
  id,
  order,
  enabled,
  plugin: p,
});

/** Meta as the runtime builds it: the Property Filter removes `secret`, test plugins need no config. */
const plainMeta: PluginMetaFactory = (c) => {
  const config: Record<string, string> = c.plugin === propertyFilterPlugin ? { properties: 'secret' } : {};
  return { config, state: c.plugin.setup(config), console: collectingConsole().console };
};

const NOW = new Date('2024-05-01T10:00:00.000Z');
const run = (event: PluginEvent, configs: PluginConfigToRun[], metaFor: PluginMetaFactory = plainMeta) =>
  runPluginChain(event, configs, metaFor, () => NOW);

describe('plugin chain', () => {
  it('runs enabled configs in ascending order, ties in the order given, and lists them as succeeded', async () => {
    const result = await run(pluginEvent({ properties: {} }), [
      config(1, 3, marker('C')),
      config(2, 1, marker('A')),
      config(3, 2, marker('B1')),
      config(4, 2, marker('B2')),
      config(5, 0, marker('off'), false),
    ]);
    expect(result.event?.properties).toEqual({
      trail: ['A', 'B1', 'B2', 'C'],
      $plugins_succeeded: ['A (2)', 'B1 (3)', 'B2 (4)', 'C (1)'],
      $plugins_failed: [],
      $plugins_deferred: [],
    });
    expect(result.droppedBy).toBeNull();
    expect(result.failures).toEqual([]);
  });

  it('stops at a plugin that returns null: no later plugin, no markers, and says which config dropped it', async () => {
    const later = jest.fn((event: PluginEvent) => event);
    const event = pluginEvent({ properties: {} });
    const result = await run(event, [
      config(1, 1, marker('A')),
      config(
        7,
        2,
        plugin('Dropper', () => null),
      ),
      config(3, 3, plugin('Later', later)),
    ]);
    expect(result).toEqual({
      event: null,
      droppedBy: { pluginConfigId: 7, pluginName: 'Dropper' },
      failures: [],
    });
    expect(later).not.toHaveBeenCalled();
    expect(event.properties).toEqual({ trail: ['A'] });
  });

  it('records a throw with the event the plugin was given, lists it as failed, and goes on', async () => {
    const thrower = plugin('Thrower', (event) => {
      (event.properties ??= {})['half_done'] = true;
      throw new TypeError('boom');
    });
    const result = await run(pluginEvent({ properties: {} }), [
      config(1, 1, marker('A')),
      config(2, 2, thrower),
      config(3, 3, marker('B')),
    ]);
    // The event is passed itself, so what the plugin changed before throwing stays (PostHog B.4).
    expect(result.event?.properties).toEqual({
      trail: ['A', 'B'],
      half_done: true,
      $plugins_succeeded: ['A (1)', 'B (3)'],
      $plugins_failed: ['Thrower (2)'],
      $plugins_deferred: [],
    });
    expect(result.failures).toHaveLength(1);
    const [failure] = result.failures;
    expect(failure?.pluginConfigId).toBe(2);
    expect(failure?.error).toMatchObject({
      message: 'boom',
      name: 'TypeError',
      time: '2024-05-01T10:00:00.000Z',
    });
    expect(failure?.error.stack).toContain('TypeError: boom');
    // A snapshot at the time of the error: B's later change is not in it.
    expect(failure?.error.event?.properties).toEqual({ trail: ['A'], half_done: true });
  });

  it('records a thrown string as message and time only, as PostHog does', () => {
    // Plugins are JavaScript and can throw a bare string; the record then has no name, stack or event.
    expect(pluginErrorRecord('nope', NOW, pluginEvent())).toEqual({
      message: 'nope',
      time: '2024-05-01T10:00:00.000Z',
    });
  });

  it('sets team_id back when a plugin changes it and counts the plugin as failed', async () => {
    const mover = plugin('Mover', (event) => ({ ...event, team_id: 99, event: 'moved' }));
    const result = await run(pluginEvent({ team_id: 13 }), [config(5, 1, mover)]);
    expect(result.event).toMatchObject({ team_id: 13, event: 'moved' });
    expect(result.failures[0]?.error).toMatchObject({
      message: 'Plugin tried to change event.team_id',
      name: 'IllegalOperationError',
    });
  });

  it('writes the markers on the event it was given, so a plugin returning a new object loses them', async () => {
    const event = pluginEvent({ properties: { secret: 1, kept: 2 } });
    const result = await run(event, [config(1, 1, marker('A')), config(2, 2, propertyFilterPlugin)]);
    expect(result.event).not.toBe(event);
    expect(result.event?.properties).toEqual({ kept: 2, trail: ['A'] });
    expect(event.properties).toMatchObject({ $plugins_succeeded: ['A (1)', 'Property Filter (2)'] });
  });

  it('lists export plugins as deferred, and writes markers even when only those are enabled', async () => {
    const result = await run(pluginEvent({ properties: {} }), [config(8, 1, s3ExportPlugin)]);
    expect(result.event?.properties).toEqual({
      $plugins_succeeded: [],
      $plugins_failed: [],
      $plugins_deferred: ['S3 Export Plugin (8)'],
    });
  });

  it('skips a config whose meta cannot be built (failed setup), as PostHog skips a VM that did not load', async () => {
    const result = await run(
      pluginEvent({ properties: {} }),
      [config(1, 1, marker('A')), config(2, 2, marker('B'))],
      (c) => (c.id === 1 ? null : plainMeta(c)),
    );
    expect(result.event?.properties).toMatchObject({ trail: ['B'], $plugins_succeeded: ['B (2)'] });
  });

  it('writes no markers when no plugin is enabled', async () => {
    const result = await run(pluginEvent({ properties: { a: 1 } }), [config(1, 1, marker('A'), false)]);
    expect(result.event?.properties).toEqual({ a: 1 });
  });

  it('does not run plugins on $snapshot and $performance_event', async () => {
    for (const name of ['$snapshot', '$performance_event']) {
      const result = await run(pluginEvent({ event: name, properties: {} }), [config(1, 1, marker('A'))]);
      expect(result.event?.properties).toEqual({});
    }
  });

  it('runs every listed plugin even when the incoming event already lists it as succeeded', async () => {
    const result = await run(
      pluginEvent({ properties: { secret: 1, $plugins_succeeded: ['Property Filter (2)'] } }),
      [config(2, 1, propertyFilterPlugin)],
    );
    expect(result.event?.properties).not.toHaveProperty('secret');
  });
});
