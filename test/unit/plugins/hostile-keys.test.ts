import { runPluginChain, type PluginConfigToRun } from '../../../functions/shared/domain/plugins/chain';
import { validatePluginConfig } from '../../../functions/shared/domain/plugins/config-schema';
import { collectingConsole } from '../../../functions/shared/domain/plugins/console';
import { firstTimeEventTrackerPlugin } from '../../../functions/shared/domain/plugins/first-time-event-tracker';
import {
  flattenProperties,
  flattenPropertiesPlugin,
  baseFlatKeyCharacters,
  flatKeyCharactersPerKeyCharacter,
  maxFlatKeyCharacters,
} from '../../../functions/shared/domain/plugins/flatten-properties';
import { pluginErrorRecord } from '../../../functions/shared/domain/plugins/plugin-error';
import { propertyFilterPlugin } from '../../../functions/shared/domain/plugins/property-filter';
import { taxonomyPlugin } from '../../../functions/shared/domain/plugins/taxonomy';
import type { BuiltInPlugin, PluginEvent } from '../../../functions/shared/domain/plugins/types';
import { unduplicatedUuid, unduplicatorPlugin } from '../../../functions/shared/domain/plugins/unduplicator';
import { memoryStorage, metaFor, pluginEvent, run, testPlugin } from './fixtures';

/**
 * Keys chosen by a tenant (config paths, event data) must never reach what every tenant of a consumer
 * container shares: built-ins, `Object.prototype`. Each test checks the built-ins afterwards and puts
 * them back if a regression removed them, so one failure does not take the test process with it.
 */
const builtIns = {
  hasOwn: Object.hasOwn,
  call: Function.prototype.call,
  toString: Object.prototype.toString,
  hasOwnProperty: Object.prototype.hasOwnProperty,
  keys: Object.keys,
};

function builtInsIntact(): boolean {
  const intact =
    Object.hasOwn === builtIns.hasOwn &&
    Function.prototype.call === builtIns.call &&
    Object.prototype.toString === builtIns.toString &&
    Object.prototype.hasOwnProperty === builtIns.hasOwnProperty &&
    Object.keys === builtIns.keys &&
    !('polluted' in {});
  Object.hasOwn = builtIns.hasOwn;
  Function.prototype.call = builtIns.call;
  Object.prototype.toString = builtIns.toString;
  Object.prototype.hasOwnProperty = builtIns.hasOwnProperty;
  Object.keys = builtIns.keys;
  delete (Object.prototype as Record<string, unknown>)['polluted'];
  return intact;
}

/** Properties as JSON gives them: `__proto__` and `constructor` as own keys. */
const fromJson = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

describe('Property Filter with prototype paths', () => {
  const attacks = [
    'constructor.hasOwn',
    'constructor.constructor.prototype.call',
    'constructor.keys',
    '__proto__.toString',
    'constructor.prototype.hasOwnProperty',
    'toString',
    'hasOwnProperty',
  ];

  it('deletes nothing it inherits: built-ins stay, the event keeps its properties', async () => {
    const meta = metaFor(propertyFilterPlugin, { properties: attacks.join(',') });
    const event = await run(propertyFilterPlugin, pluginEvent({ properties: { kept: 1 } }), meta);
    expect(builtInsIntact()).toBe(true);
    expect(event?.properties).toEqual({ kept: 1 });
  });

  it('still removes own keys of those names that the event carries', async () => {
    const properties = fromJson(
      '{"constructor": {"hasOwn": 1, "other": 2}, "__proto__": {"toString": 3, "x": 4}, "toString": 5}',
    );
    const meta = metaFor(propertyFilterPlugin, { properties: attacks.join(',') });
    const event = await run(propertyFilterPlugin, pluginEvent({ properties }), meta);
    expect(builtInsIntact()).toBe(true);
    expect(JSON.stringify(event?.properties)).toBe('{"constructor":{"other":2},"__proto__":{"x":4}}');
  });

  it("leaves an array's length alone and keeps the plugin's TypeError for a path through text", async () => {
    const meta = metaFor(propertyFilterPlugin, { properties: 'list.length,list.0' });
    const event = await run(propertyFilterPlugin, pluginEvent({ properties: { list: [1, 2] } }), meta);
    expect(JSON.stringify(event?.properties)).toBe('{"list":[null,2]}');
    const text = pluginEvent({ properties: { a: 'text' } });
    await expect(
      run(propertyFilterPlugin, text, metaFor(propertyFilterPlugin, { properties: 'a.length' })),
    ).rejects.toThrow(TypeError);
  });

  it('refuses a config naming __proto__, constructor or prototype in any path, and only those', () => {
    for (const properties of [...attacks.slice(0, 5), 'a.prototype', 'ok,__proto__']) {
      expect(propertyFilterPlugin.refuseConfig?.({ properties })).toMatchObject({ key: 'properties' });
    }
    for (const properties of ['a,b.c,$ip', 'toString', 'constructors', 'my.prototype_id', '']) {
      expect(propertyFilterPlugin.refuseConfig?.({ properties })).toBeNull();
    }
  });
});

describe('Property Flattener with hostile keys', () => {
  it('keeps a flat key that spells __proto__ a key, never the prototype', async () => {
    // `""` then `proto__` under the `__` separator: the flat key `__proto__`, holding an empty object.
    const properties = fromJson('{"": {"proto__": {}}, "nested": {"__proto__": {"a": 1}}}');
    const meta = metaFor(flattenPropertiesPlugin, { separator: '__' });
    const event = await run(flattenPropertiesPlugin, pluginEvent({ properties }), meta);
    expect(builtInsIntact()).toBe(true);
    const flat = event!.properties!;
    expect(Object.getPrototypeOf(flat)).toBe(Object.prototype);
    expect(Object.hasOwn(flat, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(flat, '__proto__')?.value).toEqual({});
    expect(flat['nested____proto____a']).toBe(1);
  });

  it('flattens own keys named constructor and leaves the built-ins alone', () => {
    const flat = flattenProperties(fromJson('{"constructor": {"prototype": {"call": 1}}}'), '.');
    expect(builtInsIntact()).toBe(true);
    expect(flat['constructor.prototype.call']).toBe(1);
  });

  it('refuses an event whose flat keys would grow past the budget: the chain keeps it as it came', async () => {
    // One 100,000-character key above 20 values: 2 MB of flat keys from a 100 KB event.
    const values = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`v${i}`, i]));
    const properties = { ['k'.repeat(100_000)]: values };
    const meta = metaFor(flattenPropertiesPlugin, { separator: '__' });
    await expect(run(flattenPropertiesPlugin, pluginEvent({ properties }), meta)).rejects.toThrow(
      String(maxFlatKeyCharacters),
    );
    // The same values under a 500-character key make 10,100 characters of keys: within it.
    const fewer = { ['k'.repeat(500)]: values };
    const flat = flattenProperties(fewer, '__');
    expect(Object.keys(flat)).toHaveLength(21);
  });

  it('lets flat keys grow with the keys an event holds, not by a megabyte per event', () => {
    // A 10,000-character key above 99 values: 11 KB of keys making 990,000 characters of flat keys,
    // which the fixed budget let every event of a batch do.
    const wide = {
      ['k'.repeat(10_000)]: Object.fromEntries(Array.from({ length: 99 }, (_, i) => [`v${i}`, i])),
    };
    expect(() => flattenProperties(wide, '__')).toThrow(
      `${flatKeyCharactersPerKeyCharacter} per character of its keys`,
    );
    // A real shape, deep and wide: 1,000 items of 5 fields, 7 levels under each, all flattened.
    const item = (i: number) =>
      Object.fromEntries(
        ['name', 'price', 'quantity', 'category', 'details'].map((field) => [
          field,
          field === 'details' ? { a: { b: { c: { d: { e: { f: { g: i } } } } } } } : i,
        ]),
      );
    const nested = { order: { items: Array.from({ length: 1_000 }, (_, i) => item(i)) } };
    const flat = flattenProperties(nested, '__');
    expect(flat['order__items__999__details__a__b__c__d__e__f__g']).toBe(999);
    expect(Object.keys(flat)).toHaveLength(1 + 5_000);
    // Keys held by the event earn flat key characters up to the cap, never past it.
    expect(baseFlatKeyCharacters + flatKeyCharactersPerKeyCharacter * 10_000).toBeLessThan(
      maxFlatKeyCharacters,
    );
  });
});

describe('Taxonomy with hostile names', () => {
  it('renames event names that are prototype keys as text', async () => {
    const meta = metaFor(taxonomyPlugin, { defaultNamingConvention: 'snake_case' });
    const names = [];
    for (const name of ['constructor', '__proto__', 'hasOwnProperty', 'toString'])
      names.push((await run(taxonomyPlugin, pluginEvent({ event: name }), meta))?.event);
    expect(builtInsIntact()).toBe(true);
    expect(names).toEqual(['constructor', '__proto__', 'has_own_property', 'to_string']);
  });

  it('fails to set up with a convention named after a prototype key', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'prototype'])
      expect(() => taxonomyPlugin.setup({ defaultNamingConvention: name })).toThrow(
        'Unknown naming convention',
      );
  });
});

describe('Unduplicator with hostile properties', () => {
  it('hashes own __proto__ and toJSON keys as data', async () => {
    const properties = fromJson('{"__proto__": {"a": 1}, "toJSON": "x", "constructor": 2}');
    const meta = metaFor(unduplicatorPlugin, { dedupMode: 'All Properties' });
    const event = await run(unduplicatorPlugin, pluginEvent({ properties }), meta);
    expect(builtInsIntact()).toBe(true);
    expect(event?.uuid).toBe(unduplicatedUuid(pluginEvent({ properties }), 'All Properties'));
    expect(event?.uuid).not.toBe(unduplicatedUuid(pluginEvent({ properties: {} }), 'All Properties'));
  });
});

describe('First Time Event Tracker with hostile names', () => {
  it('tracks only the listed names, prototype keys included, as text', async () => {
    const storage = memoryStorage();
    const meta = metaFor(firstTimeEventTrackerPlugin, { events: 'constructor,__proto__' }, { storage });
    const tracked = await run(
      firstTimeEventTrackerPlugin,
      pluginEvent({ event: '__proto__', properties: fromJson('{"__proto__": {"x": 1}}') }),
      meta,
    );
    const untracked = await run(firstTimeEventTrackerPlugin, pluginEvent({ event: 'toString' }), meta);
    expect(builtInsIntact()).toBe(true);
    expect(tracked?.properties).toMatchObject({ is_first_event_ever: true, is_first_event_for_user: true });
    expect(Object.getPrototypeOf(tracked?.properties)).toBe(Object.prototype);
    expect(untracked?.properties).toBeUndefined();
    expect([...storage.values.keys()]).toEqual(['__proto___007', '__proto__']);
  });
});

describe('the chain with plugins that throw anything', () => {
  const thrower = (name: string, thrown: () => unknown): BuiltInPlugin =>
    testPlugin(name, (event) => {
      (event.properties ??= {})[name] = true;
      throw thrown();
    });
  const everyTrapThrows = new Proxy(
    {},
    {
      get: () => {
        throw new Error('get');
      },
      getPrototypeOf: () => {
        throw new Error('getPrototypeOf');
      },
      has: () => {
        throw new Error('has');
      },
      ownKeys: () => {
        throw new Error('ownKeys');
      },
    },
  );
  const throwingGetters = Object.create(Error.prototype, {
    message: {
      get: () => {
        throw new Error('message');
      },
    },
    name: {
      get: () => {
        throw new Error('name');
      },
    },
    stack: {
      get: () => {
        throw new Error('stack');
      },
    },
  }) as Error;
  const cases: [string, () => unknown][] = [
    ['null', () => null],
    ['undefined', () => undefined],
    ['symbol', () => Symbol('thrown')],
    ['bigint', () => 10n],
    ['bare object', () => Object.create(null) as object],
    ['proxy', () => everyTrapThrows],
    ['getters', () => throwingGetters],
    ['function', () => () => 1],
    ['non-string message', () => ({ message: { nested: true }, name: 7 })],
  ];

  it('records each failure as text and goes on with the event, to the next plugin', async () => {
    const configs: PluginConfigToRun[] = cases.map(([name, thrown], i) => ({
      id: i + 1,
      order: i,
      enabled: true,
      plugin: thrower(name, thrown),
    }));
    const result = await runPluginChain(
      pluginEvent({ properties: {} }),
      configs,
      (c) => ({ config: {}, state: c.plugin.setup({}), console: collectingConsole().console }),
      () => new Date('2024-05-01T10:00:00.000Z'),
    );
    expect(result.event?.properties).toMatchObject(Object.fromEntries(cases.map(([name]) => [name, true])));
    expect(result.failures.map((failure) => failure.pluginConfigId)).toEqual(cases.map((_, i) => i + 1));
    for (const { error } of result.failures) {
      expect(typeof error.message).toBe('string');
      expect(JSON.parse(JSON.stringify(error))).toMatchObject({ time: '2024-05-01T10:00:00.000Z' });
    }
    expect(result.failures.map((failure) => failure.error.message)).toEqual([
      'null',
      'undefined',
      'Symbol(thrown)',
      '10',
      '[thrown object]',
      '[thrown object]',
      '[thrown object]',
      '() => 1',
      '[object Object]',
    ]);
  });

  it('treats a plugin returning something other than an event as a failure, keeping the event', async () => {
    const returnsText = {
      ...thrower('text', () => null),
      processEvent: () => 'not an event' as unknown as PluginEvent,
    };
    const result = await runPluginChain(
      pluginEvent({ properties: { a: 1 } }),
      [{ id: 1, order: 1, enabled: true, plugin: returnsText }],
      (c) => ({ config: {}, state: c.plugin.setup({}), console: collectingConsole().console }),
    );
    expect(result.event?.properties).toMatchObject({ a: 1, $plugins_failed: ['text (1)'] });
    expect(result.failures[0]?.error).toMatchObject({ name: 'IllegalOperationError' });
  });

  it('records a failure without the event when the event cannot be copied', () => {
    const event = pluginEvent({ properties: { f: () => 1 } as unknown as Record<string, unknown> });
    expect(pluginErrorRecord(new Error('x'), new Date(0), event)).toMatchObject({
      message: 'x',
      event: null,
    });
  });
});

describe('config validation with settings named after prototype keys', () => {
  it('reads only settings the request sent, never inherited ones', () => {
    const schema = [
      { key: 'constructor', type: 'string' as const, default: 'fallback' },
      { key: 'toString', type: 'string' as const, secret: true },
    ];
    expect(validatePluginConfig(schema, {})).toEqual({ ok: true, config: { constructor: 'fallback' } });
    expect(validatePluginConfig(schema, {}, {})).toEqual({ ok: true, config: { constructor: 'fallback' } });
  });
});
